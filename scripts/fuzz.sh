#!/usr/bin/env bash
# libFuzzer runs of the parsers of untrusted input (see Fuzz/README.md).
#
#   scripts/fuzz.sh [TARGET…]        default: every folder under Fuzz/
#   FUZZ_SECONDS=60                  time per target (default 60)
#
# Each module a target needs is compiled once with the toolchain's `-sanitize=fuzzer,address`
# (and `-enable-testing`, so a harness may use internal API) into .build-fuzz/; each harness,
# Fuzz/<Target>/Harness.swift, is linked against it. A run starts from the committed seeds in
# Fuzz/<Target>/seeds plus what earlier runs found (.build-fuzz/corpus/<Target>, not committed).
# A crash stops the target and leaves its input in .build-fuzz/artifacts/; the script then fails
# after running the others. The summary gives executions per target.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
seconds="${FUZZ_SECONDS:-60}"
[[ "$seconds" =~ ^[1-9][0-9]*$ ]] || { echo "FUZZ_SECONDS must be a whole number of seconds above 0" >&2; exit 2; }
out=.build-fuzz
mkdir -p "$out/modules" "$out/artifacts"

# Module of each target, and the flags its C dependencies need.
module_of() {
  case "$1" in
    JSONParser|Definition|Template|PageToken) echo ListModel ;;
    JWT) echo Identity ;;
    Request) echo HTTPServer ;;
    *) echo "scripts/fuzz.sh: unknown target $1" >&2; exit 2 ;;
  esac
}
c_flags() {
  case "$1" in
    Identity) echo "-I Sources/COpenSSL" ;;
    HTTPServer) echo "-I Sources/CMicroHTTPD -I Sources/CZlib -I Sources/CGlibc" ;;
    *) echo "" ;;
  esac
}
link_flags() {
  case "$1" in
    ListModel) echo "-lm" ;;
    Identity) echo "-lcrypto" ;;
    HTTPServer) echo "-lmicrohttpd -lz" ;;
  esac
}

# Modules of this package a module imports: compiled before it, linked after it.
deps_of() {
  case "$1" in
    ListModel|HTTPServer) echo JSONOutput Locking ;;
  esac
}
dep_libraries() {
  local dep
  for dep in $(deps_of "$1"); do echo "$out/lib$dep.a"; done
}

# `-package-name`: modules share `package` declarations (JSONOutput's, with ListModel), as under SwiftPM.
swiftc_fuzz=(swiftc -sanitize=fuzzer,address -O -g -parse-as-library -package-name sectional)

build_module() {
  local module="$1" library="$out/lib$1.a" dep
  for dep in $(deps_of "$module"); do build_module "$dep"; done
  local sources
  mapfile -t sources < <(find "Sources/$module" -name '*.swift' | sort)
  # Rebuild only when a source, or a dependency's library, is newer than the library.
  if [ -f "$library" ] && [ -z "$(find "Sources/$module" -name '*.swift' -newer "$library" | head -n 1)" ] \
     && [ -z "$(for dep in $(dep_libraries "$module"); do find "$dep" -newer "$library"; done)" ]; then
    return
  fi
  echo "== compiling $module for fuzzing (${#sources[@]} files)"
  # shellcheck disable=SC2046
  "${swiftc_fuzz[@]}" -module-name "$module" -enable-testing -emit-library -static \
    -emit-module -emit-module-path "$out/modules/$module.swiftmodule" -I "$out/modules" $(c_flags "$module") \
    "${sources[@]}" -o "$library"
}

build_harness() {
  local target="$1" module
  module="$(module_of "$target")"
  build_module "$module"
  echo "== linking the $target harness"
  # shellcheck disable=SC2046
  "${swiftc_fuzz[@]}" -use-ld=lld -I "$out/modules" $(c_flags "$module") "Fuzz/$target/Harness.swift" \
    "$out/lib$module.a" $(dep_libraries "$module") $(link_flags "$module") -o "$out/fuzz-$target"
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for dir in Fuzz/*/; do targets+=("$(basename "$dir")"); done
fi

for target in "${targets[@]}"; do build_harness "$target"; done

summary=()
failed=0
for target in "${targets[@]}"; do
  corpus="$out/corpus/$target"
  mkdir -p "$corpus"
  log="$out/fuzz-$target.log"
  options=(-max_total_time="$seconds" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 -max_len=4096
           -artifact_prefix="$out/artifacts/$target-")
  [ -f "Fuzz/$target/dictionary" ] && options+=(-dict="Fuzz/$target/dictionary")
  echo "== fuzzing $target for ${seconds}s"
  status=0
  ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$out/fuzz-$target" "${options[@]}" "$corpus" "Fuzz/$target/seeds" \
    > "$log" 2>&1 || status=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)"
  if [ "$status" -ne 0 ]; then
    failed=1
    echo "!! $target failed (exit $status); the log: $log; the input: $(grep -o "$out/artifacts/[^ ]*" "$log" | tail -n 1)"
    grep -m 20 -E 'Fatal error|ERROR: AddressSanitizer|ERROR: libFuzzer|SUMMARY' "$log" || tail -n 20 "$log"
  fi
  summary+=("$(printf '%-11s %12s executions  %6s corpus inputs  %s' "$target" "${runs:-?}" "$(ls "$corpus" | wc -l)" \
    "$([ "$status" -eq 0 ] && echo "no crash" || echo "CRASH")")")
done

echo
echo "libFuzzer, ${seconds}s per target:"
printf '  %s\n' "${summary[@]}"
exit "$failed"
