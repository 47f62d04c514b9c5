# shellcheck shell=bash disable=SC2034  # (the variables set here are read by the sourcing script)
# Sourced (not run) by the scripts that start services for a check: a `sectional` server on a
# port the kernel picks, and helpers such as a static web server. Whatever was started is stopped
# on every exit path (normal end, failure under `set -e`, Ctrl-C, SIGTERM).
#
#   source scripts/lib/services.sh
#   start_sectional LOG [serve flags…]   sets SECTIONAL_PID, SECTIONAL_PORT, SECTIONAL_URL once /readyz says 200;
#                                        exits 1, printing LOG, when the server dies or is not ready by the deadline
#   stop_sectional                       SIGTERM, then waits; returns the server's exit status
#   start_service LOG PATTERN cmd…       runs cmd in the background (stdout and stderr to LOG) and waits
#                                        for a port in LOG: PATTERN is a sed -E regex whose group 1 is it;
#                                        sets SERVICE_PID and SERVICE_PORT
#
# SECTIONAL_START_SECONDS (default 60) is the deadline for either to come up.

started_pids=()

# The demo config's per-user list needs an HS256 secret for user tokens (the Makefile's default,
# unless one is set); exported, so the scripts that mint tokens (`sectional token`) sign with it too.
export SECTIONAL_JWT_SECRET="${SECTIONAL_JWT_SECRET:-sectional-demo-secret-not-for-production}"

# The server's own settings a shell may hold (the README's several-instances section exports
# SECTIONAL_DATABASE_URL and SECTIONAL_API_TOKEN): a check's server uses its own store, no token
# and the default log level (its listening line is read), and the check's clients send no token.
unset SECTIONAL_HOST SECTIONAL_PORT SECTIONAL_DATA SECTIONAL_DATABASE_URL SECTIONAL_CONFIG SECTIONAL_API_TOKEN SECTIONAL_LOG_LEVEL

stop_started() {
  local pid
  for pid in "${started_pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${started_pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  started_pids=()
}
trap stop_started EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# fail_with_log LOG MESSAGE: prints MESSAGE and LOG to stderr, exits 1 (the EXIT trap stops the rest).
fail_with_log() {
  echo "$2; its log ($1):" >&2
  sed 's/^/  | /' "$1" >&2
  exit 1
}

# wait_for_port PID LOG PATTERN: the port named in LOG, once there; fails when PID dies or time runs out.
wait_for_port() {
  local pid=$1 log=$2 pattern=$3 port deadline=$((SECONDS + ${SECTIONAL_START_SECONDS:-60}))
  while true; do
    port=$(sed -n -E "s#${pattern}#\\1#p" "$log" | head -n 1)
    [ -n "$port" ] && { echo "$port"; return 0; }
    kill -0 "$pid" 2>/dev/null || fail_with_log "$log" "process $pid exited before naming its port"
    [ $SECONDS -lt $deadline ] || fail_with_log "$log" "process $pid named no port within ${SECTIONAL_START_SECONDS:-60} s"
    sleep 0.1
  done
}

start_service() {
  local log=$1 pattern=$2
  shift 2
  "$@" >"$log" 2>&1 &
  SERVICE_PID=$!
  started_pids+=("$SERVICE_PID")
  SERVICE_PORT=$(wait_for_port "$SERVICE_PID" "$log" "$pattern") || exit 1
}

start_sectional() {
  local log=$1 deadline status
  shift
  [ -x .build/debug/sectional ] || { echo "no .build/debug/sectional: run 'swift build' first" >&2; exit 1; }
  .build/debug/sectional serve --host 127.0.0.1 --port 0 "$@" 2>"$log" &
  SECTIONAL_PID=$!
  started_pids+=("$SECTIONAL_PID")
  # The start-up line: {"…","msg":"listening","address":"http://127.0.0.1:PORT",…}
  SECTIONAL_PORT=$(wait_for_port "$SECTIONAL_PID" "$log" '.*"msg":"listening","address":"http://127\.0\.0\.1:([0-9]+)".*') || exit 1
  SECTIONAL_URL="http://127.0.0.1:$SECTIONAL_PORT"
  deadline=$((SECONDS + ${SECTIONAL_START_SECONDS:-60}))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "$SECTIONAL_URL/readyz")" = 200 ]; do
    kill -0 "$SECTIONAL_PID" 2>/dev/null || fail_with_log "$log" "sectional exited before it was ready"
    [ $SECONDS -lt $deadline ] || fail_with_log "$log" "sectional was not ready within ${SECTIONAL_START_SECONDS:-60} s"
    sleep 0.1
  done
}

stop_sectional() {
  local status=0
  kill -TERM "$SECTIONAL_PID"
  wait "$SECTIONAL_PID" || status=$?
  local kept=() pid
  for pid in "${started_pids[@]}"; do [ "$pid" = "$SECTIONAL_PID" ] || kept+=("$pid"); done
  started_pids=("${kept[@]}")
  return "$status"
}
