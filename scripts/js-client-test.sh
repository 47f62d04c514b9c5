#!/usr/bin/env bash
# The JavaScript client's tests (clients/js/test/, `node --test`) against a live server:
# `sectional serve --memory` with clients/js/test/config.json on a port the kernel picks,
# stopped on every exit path (scripts/lib/services.sh).
#   scripts/js-client-test.sh        (after `swift build`; needs Debian's nodejs)
# Artifacts: artifacts/js-client-test-server.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh
mkdir -p artifacts
start_sectional artifacts/js-client-test-server.log --config clients/js/test/config.json --memory
SECTIONAL_URL="$SECTIONAL_URL" node --test clients/js/test/*.test.mjs
