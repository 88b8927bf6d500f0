#!/usr/bin/env bash
# Whole one-shot commands of several bua builds, interleaved (bench/abtime):
# each build runs its own daemon and headless managed Chromium (its own
# extension is part of what is compared) in a fresh home, warm, against
# the same page, served by bench/peers/lib/pages.mjs' static files
# (testdata/sites). BENCHMARKS.md §Where an action's time goes.
#
#   bench/speed_ab.sh /tmp/bua-bf11878 /tmp/bua-c5876c6 ./bua        # eval, 40 rounds
#   N=40 WHAT=open bench/speed_ab.sh /tmp/bua-c5876c6 ./bua           # bua open of a page
#
# WHAT: eval (`bua eval 'return 1' --tab T`, the default), extract (`bua
# extract --tab T` of bench/peers' page of 100 buttons), click (`bua click
# #terms --tab T`, a checkbox of form.html), flow50 (`bua run`
# of bench/peers' 50-step flow, which opens and closes its own tab) or open
# (`bua open URL`, timed from start to exit, then its tab closed, untimed).
# The first build is the baseline of the paired ratios. Needs node (the
# page server) and go.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-40}
WHAT=${WHAT:-eval}
[ $# -ge 1 ] || { echo "usage: bench/speed_ab.sh BUA [BUA ...]" >&2; exit 2; }
dir=$(mktemp -d "${TMPDIR:-/tmp}/bua-speed-ab.XXXXXX")
chmod 700 "$dir"
pids=()
cleanup() {
  for h in "$dir"/h*; do [ -d "$h" ] && BUA_HOME=$h "${bins[${h##*/h}]}" stop >/dev/null 2>&1 || true; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
}
trap cleanup EXIT
bins=()
# Each build is copied into the run's folder first, all the same way: a
# binary the linker wrote and one cp wrote started up to 20% apart in
# one run here (the same bytes, laid out differently in the page cache),
# which would swamp the few percent a change makes.
for i in $(seq 0 $(($# - 1))); do
  b=${@:$((i + 1)):1}
  cp "$b" "$dir/bua$i"
  bins+=("$dir/bua$i")
  echo "bua$i is $b"
done

port_file=$dir/port
# bench/peers' page server: /sites/ (testdata/sites) and /gen/buttons.html.
node --input-type=module -e '
import { serve } from "./bench/peers/lib/pages.mjs";
import { writeFileSync } from "node:fs";
const { base } = await serve(process.cwd());
writeFileSync(process.argv[1], base);
' "$port_file" &
pids+=($!)
for _ in $(seq 100); do [ -s "$port_file" ] && break; sleep 0.05; done
base=$(cat "$port_file")
url="$base/sites/form.html"
# The 50-step flow bench/peers runs (bench/peers/lib/flow.mjs).
node --input-type=module -e '
import { flowSteps, buaFlowYAML } from "./bench/peers/lib/flow.mjs";
import { writeFileSync } from "node:fs";
writeFileSync(process.argv[2], buaFlowYAML(flowSteps(process.argv[1])));
' "$url" "$dir/fifty.yaml"
go build -o "$dir/abtime" ./bench/abtime


cmds=()
runs=()
tabs=()
for i in "${!bins[@]}"; do
  h=$dir/h$i
  mkdir -m 700 "$h"
  run="env BUA_HOME=$h BUA_LISTEN=127.0.0.1:0 CI=true ${bins[$i]}"
  runs+=("$run")
  page=$url
  [ "$WHAT" = extract ] && page="$base/gen/buttons.html?n=100"
  tab=$($run --json open "$page" | sed -n 's/.*"tabId": *\([0-9]*\).*/\1/p')
  [ -n "$tab" ] || { echo "speed_ab: ${bins[$i]} open failed" >&2; exit 1; }
  case $WHAT in
    extract) cmds+=(-c "$run extract --tab $tab") ;;
    click) cmds+=(-c "$run click #terms --tab $tab") ;;
    flow50) cmds+=(-c "$run run --quiet $dir/fifty.yaml") ;;
    *) cmds+=(-c "$run eval 'return 1' --tab $tab") ;;
  esac
done
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
case $WHAT in
  eval | extract | click | flow50) (cd "$dir" && ./abtime -n "$N" "${cmds[@]}") ;;
  open)
    # A B A B …: each open timed alone, its tab closed before the next.
    for r in $(seq 0 "$N"); do
      for i in "${!runs[@]}"; do
        t0=$(date +%s%N)
        tab=$(${runs[$i]} --json open "$url" | sed -n 's/.*"tabId": *\([0-9]*\).*/\1/p')
        t1=$(date +%s%N)
        ${runs[$i]} close "$tab" >/dev/null
        [ "$r" -gt 0 ] && echo "$i $(( (t1 - t0) / 1000 ))"   # round 0 warms up
      done
    done > "$dir/open.txt"
    python3 - "$dir/open.txt" "${bins[@]}" <<'PY'
import sys, statistics
rows = [l.split() for l in open(sys.argv[1])]
bins = sys.argv[2:]
us = {i: [int(t) for j, t in rows if int(j) == i] for i in range(len(bins))}
for i, b in enumerate(bins):
    ratios = [a / z for a, z in zip(us[i], us[0])]
    print(f"open {b:50s} median {statistics.median(us[i])/1000:7.1f} ms  paired ratio to the first {statistics.median(ratios):.3f}  ({len(us[i])} runs)")
PY
    ;;
  *) echo "speed_ab: WHAT is eval, extract, click, flow50 or open" >&2; exit 2 ;;
esac
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
