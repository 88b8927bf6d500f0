#!/usr/bin/env bash
# cli_overhead.sh: what one `bua click eN` process costs on top of the same
# click sent by a Go client on the daemon's socket (see README.md here).
#
#   bench/cli_overhead.sh                 # 200 iterations
#   N=50 bench/cli_overhead.sh            # fewer
#   MAX_OVERHEAD_MS=10 bench/cli_overhead.sh   # exit 1 above the target
#
# Needs Chromium, like the e2e suite: the benchmark runs in e2e's TestMain,
# which builds bua and starts a headless managed browser.
set -euo pipefail
cd "$(dirname "$0")/.."

n="${N:-200}"
out="$(go test ./e2e -run '^$' -bench '^BenchmarkCLIClick$' -benchtime "${n}x" -count 1 "$@" 2>&1)" || {
	echo "$out" >&2
	exit 1
}
line="$(grep '^BenchmarkCLIClick' <<<"$out" || true)"
if [[ -z "$line" ]]; then
	echo "$out" >&2
	echo "cli_overhead: no BenchmarkCLIClick result" >&2
	exit 1
fi
echo "$line"

# The line reads: NAME N  X cli-median-ms  Y client-median-ms  Z overhead-median-ms
metric() { awk -v unit="$1" '{ for (i = 2; i <= NF; i++) if ($i == unit) print $(i-1) }' <<<"$line"; }
cli="$(metric cli-median-ms)"
client="$(metric client-median-ms)"
overhead="$(metric overhead-median-ms)"
echo "median: bua click ${cli} ms, Go client ${client} ms, CLI overhead ${overhead} ms (${n} clicks each)"

if [[ -n "${MAX_OVERHEAD_MS:-}" ]] && awk -v o="$overhead" -v m="$MAX_OVERHEAD_MS" 'BEGIN { exit !(o > m) }'; then
	echo "cli_overhead: overhead ${overhead} ms is above MAX_OVERHEAD_MS=${MAX_OVERHEAD_MS}" >&2
	exit 1
fi
