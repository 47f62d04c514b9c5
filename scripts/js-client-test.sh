#!/usr/bin/env bash
# The JavaScript client's tests (clients/js/test/, `node --test`) against a live server:
# `sectional serve --memory` with clients/js/test/config.json on a port the kernel picks,
# stopped on every exit path (scripts/lib/services.sh); tests that restart a server start their own
# (SECTIONAL_BIN, clients/js/test/own-server.mjs). First its JSDoc types with tsc, with
# clients/js/test/types.check.mjs (answers as the server sends them), as `make lint` checks them
# (the entry point clients/js/sectional.mjs, and every module of clients/js/sectional/ it imports).
#   scripts/js-client-test.sh        (after `swift build`; needs Debian's nodejs and node-typescript)
# Artifacts: artifacts/js-client-test-server.log.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/services.sh
tsc --noEmit --allowJs --checkJs --strict --target es2022 --module es2022 --lib es2022,dom \
  clients/js/sectional.mjs clients/js/test/types.check.mjs
mkdir -p artifacts
start_sectional artifacts/js-client-test-server.log --config clients/js/test/config.json --memory
SECTIONAL_URL="$SECTIONAL_URL" SECTIONAL_BIN="$PWD/.build/debug/sectional" node --test clients/js/test/*.test.mjs
