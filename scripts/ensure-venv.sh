#!/usr/bin/env bash
# Makes .venv hold exactly the PyPI tools of scripts/requirements.txt (all pinned ==).
# Creates the venv when missing (Debian needs python3-venv for that: installed when missing, as
# root) and reinstalls when the requirements file changed since the last install.
#
#   scripts/ensure-venv.sh          (the scripts that need a tool call it themselves)
set -euo pipefail
cd "$(dirname "$0")/.."
requirements=scripts/requirements.txt
stamp=.venv/installed-requirements.txt

scripts/ensure-packages.sh python3 python3-venv
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
if ! cmp -s "$requirements" "$stamp"; then
  echo "Installing the pinned PyPI tools of $requirements into .venv" >&2
  .venv/bin/pip install -q --disable-pip-version-check --retries 5 -r "$requirements"
  cp "$requirements" "$stamp"
fi
