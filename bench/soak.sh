#!/usr/bin/env bash
# soak.sh: a bounded soak of mixed actions against the fixture sites in a
# managed headless browser with a BUA_HOME of its own. Every ~10 s it samples
# the daemon's goroutines, heap and open fds (`bua status --json`, .runtime)
# and the browser's RSS (summed over its process group from /proc), then
# prints a table, per metric a verdict: flat, or growing (the mean of the
# last third of the samples against the first third), and the actions'
# median and slowest wall times.
#
#   bench/soak.sh                    # 5 minutes
#   SOAK_SECONDS=60 bench/soak.sh    # shorter
#   SOAK_INTERVAL=5 bench/soak.sh    # sample more often
#   GROWTH_PCT=20 bench/soak.sh      # what counts as growing (default 25 %)
#
# Exit status: 0 when every metric is flat, 1 when one grows, 2 when the
# setup failed. Needs Chromium (as the e2e suite), jq, and python3 (its
# http.server serves testdata/sites on a free loopback port).
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${SOAK_SECONDS:-300}"
interval="${SOAK_INTERVAL:-10}"
growth="${GROWTH_PCT:-25}"
for tool in jq python3; do
	command -v "$tool" >/dev/null || { echo "soak: needs $tool" >&2; exit 2; }
done

tmp="$(mktemp -d /tmp/buasoak.XXXXXX)"
export BUA_HOME="$tmp/home" BUA_LISTEN=127.0.0.1:0 CI=true
unset BUA_CHROME_ARGS || true
bua="$tmp/bua"
server_pid=""
cleanup() {
	"$bua" browser stop >/dev/null 2>&1 || true
	"$bua" stop >/dev/null 2>&1 || true
	[[ -n "$server_pid" ]] && kill "$server_pid" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

CGO_ENABLED=0 go build -o "$bua" ./cmd/bua

# The fixture server picks a free port and says which on its first line.
python3 -u -m http.server --bind 127.0.0.1 --directory testdata/sites 0 >"$tmp/http.log" 2>&1 &
server_pid=$!
port=""
for _ in $(seq 50); do
	port="$(sed -n 's/.* port \([0-9]*\).*/\1/p' "$tmp/http.log" | head -1)"
	[[ -n "$port" ]] && break
	sleep 0.1
done
[[ -n "$port" ]] || { echo "soak: the fixture server did not start" >&2; cat "$tmp/http.log" >&2; exit 2; }
site="http://127.0.0.1:$port"

"$bua" browser start --headless >/dev/null || { echo "soak: bua browser start failed" >&2; exit 2; }
tab="$("$bua" --json open "$site/form.html" | jq -r .tabId)"

# browser_rss_kb sums VmRSS over the managed browser's process group (the
# launcher puts the browser in a group of its own: renderers, GPU, utility).
browser_rss_kb() {
	local pgid="$1" total=0 f pg rss
	for f in /proc/[0-9]*/stat; do
		pg="$(awk '{ sub(/^.*\) /, ""); print $3 }' "$f" 2>/dev/null)" || continue
		[[ "$pg" == "$pgid" ]] || continue
		rss="$(awk '/^VmRSS:/ { print $2 }' "${f%/stat}/status" 2>/dev/null)" || continue
		total=$((total + ${rss:-0}))
	done
	echo "$total"
}

actions=0
errors=0
samples="$tmp/samples.tsv"
: >"$samples"
sample() {
	local st pid
	st="$("$bua" status --json)"
	pid="$(jq -r .managed.pid <<<"$st")"
	printf '%d\t%s\t%s\t%s\t%s\t%d\t%d\n' "$(($(date +%s) - start))" \
		"$(jq -r .runtime.goroutines <<<"$st")" "$(jq -r .runtime.heapInUseBytes <<<"$st")" \
		"$(jq -r .runtime.openFds <<<"$st")" "$(browser_rss_kb "$pid")" "$actions" "$errors" >>"$samples"
}
act() {
	local t0 ok=1
	actions=$((actions + 1))
	t0="$(date +%s%N)"
	out="$("$bua" "$@" 2>&1)" || ok=0
	printf '%d\t%s\n' "$((($(date +%s%N) - t0) / 1000000))" "$*" >>"$tmp/times.tsv"
	if ((!ok)); then
		errors=$((errors + 1))
		echo "$(date +%T) bua $*: $out" >>"$tmp/errors.log"
	fi
}

# One round touches every action family: navigate, extract, type, click,
# eval, screenshot, wait-for, tabs, scroll, hover, press, and a second
# page so documents and uid caches come and go.
round() {
	act -q navigate --tab "$tab" "$site/form.html"
	act -q extract --tab "$tab"
	act -q type --tab "$tab" '#name' "soak $actions"
	act -q click --tab "$tab" '#submit'
	act -q eval --tab "$tab" 'return document.title'
	act -q screenshot --tab "$tab" -o "$tmp/shot.jpg"
	act -q wait-for --tab "$tab" '#result' --timeout 5s
	act -q tabs
	act -q navigate --tab "$tab" "$site/long.html"
	act -q scroll --tab "$tab" down
	act -q extract --tab "$tab"
	act -q navigate --tab "$tab" "$site/buttons.html"
	act -q hover --tab "$tab" 'button'
	act -q press --tab "$tab" Tab
}

start="$(date +%s)"
sample
next=$((start + interval))
while (($(date +%s) - start < secs)); do
	round
	if (($(date +%s) >= next)); then
		sample
		next=$((next + interval))
	fi
done
sample

echo "soak: ${secs}s, $actions actions, $errors errors (bua $("$bua" --version 2>/dev/null | awk '{print $2}'), $(nproc) cores)"
printf '%6s %10s %10s %6s %12s %8s %7s\n' "t(s)" goroutines "heap(MB)" fds "browser(MB)" actions errors
awk -F'\t' '{ printf "%6d %10d %10.1f %6d %12.1f %8d %7d\n", $1, $2, $3/1048576, $4, $5/1024, $6, $7 }' "$samples"

# verdict: per metric, the mean of the last third against the first third.
verdict="$(awk -F'\t' -v g="$growth" '
	{ for (i = 2; i <= 5; i++) v[NR, i] = $i }
	END {
		n = NR; k = int(n / 3); if (k < 1) k = 1
		split("goroutines heap fds browser-rss", name, " ")
		bad = 0
		for (i = 2; i <= 5; i++) {
			a = 0; b = 0
			for (j = 1; j <= k; j++) { a += v[j, i]; b += v[n - k + j, i] }
			a /= k; b /= k
			pct = a > 0 ? (b - a) * 100 / a : 0
			state = pct > g ? "growing" : "flat"
			if (state == "growing") bad = 1
			printf "%s %s: first third %.0f, last third %.0f (%+.1f%%)\n", name[i - 1], state, a, b, pct
		}
		exit bad
	}' "$samples")" && status=0 || status=1
echo "$verdict"
# Each action's wall time (a whole bua process): the median, and the slowest.
sort -n "$tmp/times.tsv" | awk -F'\t' '{ ms[NR] = $1 } END { printf "action time (whole process): median %d ms, p95 %d ms, max %d ms\n", ms[int((NR + 1) / 2)], ms[int(NR * 0.95)], ms[NR] }'
echo "slowest actions:"
sort -rn "$tmp/times.tsv" | awk -F'\t' 'NR <= 5 { printf "  %6d ms  bua %s\n", $1, $2 }'
if [[ -s "$tmp/errors.log" ]]; then
	echo "first errors:"
	awk 'NR <= 5' "$tmp/errors.log"
fi
if ((status)); then echo "verdict: growing"; else echo "verdict: flat"; fi
exit "$status"
