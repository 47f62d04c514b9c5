#!/usr/bin/env bash
# Installs the Debian packages named as arguments when any is missing.
# As root it runs apt-get itself (network fetches retried by apt, the whole update + install
# retried up to 3 times, the output shown when it finally fails); otherwise it prints the exact
# command and fails.
set -euo pipefail
missing=()
for package in "$@"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "Missing system packages: ${missing[*]}. Install them with:" >&2
  echo "  sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "Installing missing packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt=(apt-get -o Acquire::Retries=3 -o DPkg::Lock::Timeout=300)
output=$(mktemp)
trap 'rm -f "$output"' EXIT
attempts=3
for attempt in $(seq "$attempts"); do
  if "${apt[@]}" update -qq >"$output" 2>&1 \
     && "${apt[@]}" install -y -qq --no-install-recommends "${missing[@]}" >>"$output" 2>&1; then
    exit 0
  fi
  if [ "$attempt" -lt "$attempts" ]; then
    echo "apt-get failed (attempt $attempt of $attempts); retrying in $((attempt * 10)) s" >&2
    sleep $((attempt * 10))
  fi
done
echo "apt-get could not install ${missing[*]} after $attempts attempts; its last output:" >&2
cat "$output" >&2
exit 1
