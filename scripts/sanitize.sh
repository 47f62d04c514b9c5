#!/usr/bin/env bash
# The XCTest suite under a sanitizer: `make asan` (AddressSanitizer) and `make tsan` (ThreadSanitizer).
#
#   scripts/sanitize.sh address|thread [swift test flags…, e.g. --filter ListModelTests]
#
# Builds everything (tests and the `sectional` binary the integration tests start) instrumented, in
# its own scratch path (.build-asan, .build-tsan), so the normal .build is left alone, then runs the
# suite with a throwaway PostgreSQL cluster (scripts/with-postgres.sh), as `make test` does. A
# sanitizer report fails the test process (halt_on_error), so a finding cannot pass unnoticed, and
# nothing is suppressed. ThreadSanitizer builds are compiled with SECTIONAL_TSAN, with which every lock
# (`Locked`, Sources/Locking) tells TSan of its hand-overs, which it cannot see inside
# `Synchronization.Mutex` when the lock is contended. LeakSanitizer is off
# (`detect_leaks=0`; set ASAN_OPTIONS to try it): these runs look for memory errors, not leaks,
# which `make soak` watches.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH

sanitizer="${1:-}"
shift || true
case "$sanitizer" in
  address) scratch=.build-asan ;;
  thread) scratch=.build-tsan ;;
  *) echo "usage: $0 address|thread [swift test flags…]" >&2; exit 2 ;;
esac

# An instrumented server is 5–20× slower: the test client waits up to 2 minutes for an answer
# (10 s otherwise), so a big request is not taken for a hang.
export SECTIONAL_TEST_TIMEOUT_SECONDS="${SECTIONAL_TEST_TIMEOUT_SECONDS:-120}"
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_leaks=0:abort_on_error=0}"
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}"

flags=()
[ "$sanitizer" = thread ] && flags=(-Xswiftc -DSECTIONAL_TSAN)

swift build --build-tests --scratch-path "$scratch" --sanitize="$sanitizer" "${flags[@]}"
scripts/with-postgres.sh swift test --skip-build --scratch-path "$scratch" --sanitize="$sanitizer" "${flags[@]}" --disable-swift-testing "$@"
