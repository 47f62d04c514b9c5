#!/usr/bin/env bash
# `make bench-compare BASE=<git revision>`: this checkout against an earlier one, to see what a
# change costs. Both release servers run at once, each with its own checkout's demo `contacts`
# list, request logs off (warn), the same 100,000 generated people; every scenario is measured in
# alternating rounds (base, head, base, head, …: BENCH_ROUNDS of each, default 3; wrk -t1 -c32,
# BENCH_SECONDS each, default 10) and the best round of each is compared, so a slow minute of the
# machine does not pick the winner; next to it, the server's CPU time per request (median round),
# which the machine's other work (wrk shares the cores) moves far less.
# Then the in-process model benchmark of both, alternating, MODEL_ROUNDS times each (default 6);
# its table gives each figure's best and median round per side (lower is better there). More
# rounds than the servers get: on this machine a whole process runs fast or slow (a page written
# in about 6 µs or in 15–25 µs), so the best of three rounds says which side drew a fast process.
#
#   Benchmarks/compare.sh BASE_DIR    BASE_DIR: a checkout with release builds of `sectional` and
#                                     `sectional-bench` (the Makefile target makes one under
#                                     .bench-base/)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=Benchmarks/common.sh
source Benchmarks/common.sh
base_dir=$(cd "${1:?usage: $0 BASE_DIR}" && pwd)
seconds=${BENCH_SECONDS:-10}
rounds=${BENCH_ROUNDS:-3}
model_rounds=${MODEL_ROUNDS:-6}
begin_run compare
export SECTIONAL_JWT_SECRET=${SECTIONAL_JWT_SECRET:-sectional-demo-secret-not-for-production}
declare -A url=([base]="http://127.0.0.1:18700" [head]="http://127.0.0.1:18701")
declare -A bin=([base]="$base_dir/.build/release" [head]="$PWD/.build/release")
declare -A src=([base]="$base_dir" [head]="$PWD")
declare -A server_pid=()

echo "== base $(git -C "$base_dir" rev-parse --short HEAD), head $(git rev-parse --short HEAD): 100,000 people each" >&2
for side in base head; do port_free "${url[$side]##*:}"; done
for side in base head; do
  python3 - "${src[$side]}/config/sectional.json" "$work/$side" > "$work/$side.json" <<'PY'
import json, sys
config = json.load(open(sys.argv[1]))
config.pop("seed", None)
config["lists"] = {"contacts": config["lists"]["contacts"]}
config["storage"] = {"kind": "sqlite", "path": sys.argv[2] + ".sqlite"}
config["server"]["connectionLimit"] = 4000
config["server"]["perClientConnectionLimit"] = 0  # every benchmark client is 127.0.0.1
print(json.dumps(config))
PY
  SECTIONAL_LOG_LEVEL=warn "${bin[$side]}/sectional" --config "$work/$side.json" --port "${url[$side]##*:}" \
    2>"$work/$side.log" &
  pids+=($!); server_pid[$side]=$!
  wait_ready "${url[$side]}/readyz" "${server_pid[$side]}"
  echo "  $side: $(python3 Benchmarks/load-people.py "${url[$side]}" 100000 2>&1 | tail -1)" >&2
done

# Look-up targets, the same for both (page tokens are each server's own: both walk their pages).
python3 - "$work" "${url[base]}" "${url[head]}" <<'PY'
import json, random, sys, urllib.request
work, urls = sys.argv[1], dict(zip(("base", "head"), sys.argv[2:]))
get = lambda side, path: json.load(urllib.request.urlopen(urls[side] + path))
random.seed(7)
outline = get("head", "/v1/lists/contacts")
tags = outline["tagCount"]
visible = [s for s in outline["sections"] if s["rowCount"] > 0]
lines = {
    "tags": [f"/v1/lists/contacts/tags/{random.randrange(tags)}" for _ in range(5000)],
    "rows": [f"/v1/lists/contacts/rows/p-{random.randint(1, 100000):06d}" for _ in range(5000)],  # generate-people.py's ids
}
ranges = []
for _ in range(5000):
    s = random.choice(visible)
    ranges.append(f"/v1/lists/contacts/sections/{s['index']}/rows?start={random.randrange(s['rowCount'])}&count=20")
lines["ranges"] = ranges
for side in urls:
    pages, token = [], None
    while len(pages) < 1000:
        page = get(side, "/v1/lists/contacts/rows?pageSize=50" + (f"&pageToken={token}" if token else ""))
        token = page.get("nextPageToken")
        if not token: break
        pages.append(f"/v1/lists/contacts/rows?pageSize=50&pageToken={token}")
    lines[f"pages-{side}"] = pages
    lines[f"mixed-{side}"] = lines["tags"][:2500] + pages[:500]
for name, paths in lines.items():
    open(f"{work}/{name}.txt", "w").write("\n".join(paths) + "\n")
PY

# One scenario: NAME, wrk's script arguments, its connection option (default -c32) and the
# script's own argument, where "{side}" stands for base or head.
results=()
compare() {
  local name=$1 args=$2 side round best figures ticks
  declare -A best_of=() cpu_of=()
  local line="  $name:"
  for round in $(seq "$rounds"); do
    for side in base head; do
      ticks=$(cpu_ticks "${server_pid[$side]}")
      # shellcheck disable=SC2086
      figures=$(wrk_figures ${3:--c32} -d"${seconds}s" ${args//\{side\}/$side} "${url[$side]}" -- ${4//\{side\}/$side})
      ticks=$(( $(cpu_ticks "${server_pid[$side]}") - ticks ))
      # The server's CPU time per request (user + system over the round, in clock ticks).
      cpu_of[$side]+=" $(python3 -c "print(f'{$ticks * 1e6 / $(getconf CLK_TCK) / max(${figures%% *} * $seconds, 1):.2f}')")"
      line+=" $side ${figures%% *}"
      best=${best_of[$side]:-0 0 0}
      [ "${figures%% *}" -gt "${best%% *}" ] && best_of[$side]=$figures
    done
  done
  echo "$line" >&2
  echo "    server CPU µs/request: base${cpu_of[base]}, head${cpu_of[head]}" >&2
  results+=("$name	${best_of[base]}	${best_of[head]}	$(median ${cpu_of[base]})	$(median ${cpu_of[head]})")
}


# The median of the numbers given.
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

echo "== scenarios (wrk -t1 -c32 -d${seconds}s, $rounds rounds of base then head)" >&2
for side in base head; do
  echo "/v1/lists/contacts" > "$work/outline-$side.txt"
  echo "/v1/lists/contacts/rows?pageSize=50" > "$work/first-$side.txt"
done
compare "outline" "-s Benchmarks/wrk/paths.lua" "" "$work/outline-{side}.txt"
compare "first page (50 rows)" "-s Benchmarks/wrk/paths.lua" "" "$work/first-{side}.txt"
compare "random pages by token" "-s Benchmarks/wrk/paths.lua" "" "$work/pages-{side}.txt"
compare "section range (20 rows)" "-s Benchmarks/wrk/paths.lua" "" "$work/ranges.txt"
compare "tag look-up" "-s Benchmarks/wrk/paths.lua" "" "$work/tags.txt"
compare "row-id look-up" "-s Benchmarks/wrk/paths.lua" "" "$work/rows.txt"
for side in base head; do
  since=$(curl -s "${url[$side]}/v1/lists/contacts" | python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
  python3 Benchmarks/write-changes.py "${url[$side]}"
  echo "/v1/lists/contacts/changes?since=$since&maxChanges=2000" > "$work/changes-$side.txt"
done
compare "changes after 999 writes" "-s Benchmarks/wrk/paths.lua" "" "$work/changes-{side}.txt"
compare "mixed 90% read / 10% write" "-s Benchmarks/wrk/mixed.lua" "" "$work/mixed-{side}.txt"
compare "single durable upsert (-c1)" "-s Benchmarks/wrk/upsert.lua" "-c1" ""

echo "== model, in process (sectional-bench model), $model_rounds rounds of base then head" >&2
for round in $(seq "$model_rounds"); do
  for side in base head; do
    "${bin[$side]}/sectional-bench" model > "$work/model-$side-$round.txt"
  done
done

echo
echo "Base $(git -C "$base_dir" rev-parse --short HEAD) against head $(git rev-parse --short HEAD): wrk -t1 -d${seconds}s, best of $rounds alternating rounds; release builds; logs off; $(nproc) cores; $(date +%F)"
echo
echo "Req/s is each side's best round; server CPU per request (user + system time of the server process"
echo "over the round, divided by its requests) is each side's median round: on a machine whose cores wrk"
echo "shares, it moves far less from round to round than req/s does."
echo
echo "| scenario | base req/s | head req/s | head / base | base p50 ms | head p50 ms | base CPU µs/req | head CPU µs/req | head / base CPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
for r in "${results[@]}"; do
  IFS=$'\t' read -r name b h bcpu hcpu <<< "$r"
  read -r brps bp50 _ <<< "$b"; read -r hrps hp50 _ <<< "$h"
  python3 -c "print(f'| $name | {$brps:,} | {$hrps:,} | {$hrps / $brps:.2f} | $bp50 | $hp50 | $bcpu | $hcpu | {$hcpu / $bcpu:.2f} |')"
done
echo
echo "Model (sectional-bench model), $model_rounds alternating rounds per side: each figure's best and median round (each round's figures below):"
echo
python3 - "$work" <<'PY'
import glob, re, statistics, sys
figures = {  # name: (pattern over one run's output, unit)
    "build 1,000,000 rows": (r"build\s+1,000,000 rows: ([\d.]+) s", "s"),
    "upsert p50": (r"upsert .*?p50 ([\d.]+) µs", "µs"),
    "delete p50": (r"delete .*?p50 ([\d.]+) µs", "µs"),
    "page write p50": (r"page .*?write p50 ([\d.]+) µs", "µs"),
    "page cut p50": (r"cut \(token decode \+ seek\) p50 ([\d.]+) µs", "µs"),
    "tag look-up p50": (r"lookup .*?p50 ([\d.]+) µs", "µs"),
}
values = {}
for path in glob.glob(f"{sys.argv[1]}/model-*.txt"):
    side = path.rsplit("/", 1)[1].split("-")[1]
    text = open(path).read()
    for name, (pattern, _) in figures.items():
        if (m := re.search(pattern, text)):
            values.setdefault((side, name), []).append(float(m.group(1)))
print("| figure | base best | head best | head / base | base median | head median | head / base |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name, (_, unit) in figures.items():
    b, h = values.get(("base", name)), values.get(("head", name))
    if b and h:
        bb, hb, bm, hm = min(b), min(h), statistics.median(b), statistics.median(h)
        print(f"| {name} | {bb:g} {unit} | {hb:g} {unit} | {hb / bb:.2f} | {bm:g} {unit} | {hm:g} {unit} | {hm / bm:.2f} |")
PY
echo
for f in "$work"/model-*.txt; do
  side=$(basename "$f" .txt); side=${side#model-}
  grep -E '^(build   1,000,000|upsert|delete|page|lookup)' "$f" | sed "s/^/  $side: /"
done
