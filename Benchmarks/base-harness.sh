#!/usr/bin/env bash
# Builds the `sectional-bench` of an earlier checkout (BASE_DIR) with this checkout's model suite
# (ModelBench.swift, main.swift), so that `make bench-compare` measures both sides with the same
# instrument: a fix to how the suite times a write must not pass for a change in the code it times.
# An older base whose harness target does not depend on SectionalService gets the suite without
# that import; when the suite does not build against the base at all, the base's own suite is built
# and a warning says so.
#
#   Benchmarks/base-harness.sh BASE_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
dir=${1:?usage: $0 BASE_DIR}
bench="$dir/Sources/sectional-bench"
build() { (cd "$dir" && swift build -c release --product sectional-bench); }

git -C "$dir" checkout -q -- Sources/sectional-bench
cp Sources/sectional-bench/ModelBench.swift Sources/sectional-bench/main.swift "$bench/"
build && exit 0
sed -i '/^import SectionalService/d' "$bench/ModelBench.swift"
build && exit 0
echo "warning: this checkout's model suite does not build against $dir: the base's own measures it" >&2
git -C "$dir" checkout -q -- Sources/sectional-bench
build
