#!/usr/bin/env bash
# parallel.sh: `bua run --parallel N` on a 2-core machine (BENCHMARKS.md
# §`bua run --parallel`):
#
#   1. wall time of six flows that mostly wait, serial against --parallel 3,
#      interleaved A B A B (bench/abtime) over ROUNDS rounds;
#   2. memory per worker: the PSS of each managed browser's process group
#      (/proc/PID/smaps_rollup), after those runs;
#   3. the widest N: twelve flows that read a real page (a corpus article:
#      navigate, extract, a 1 s wait), --parallel 1 2 3 4 6, interleaved.
#
#   bench/parallel.sh             # 3 rounds each
#   ROUNDS=5 bench/parallel.sh
#   PARTS=3 bench/parallel.sh     # only the widest N
#
# Needs Chromium. It runs in a BUA_HOME of its own under /tmp, with CI=true
# (headless managed browsers), and stops its daemon and browsers at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds="${ROUNDS:-3}"
parts="${PARTS:-1 2 3}"
part() { [[ " $parts " == *" $1 "* ]]; }
tmp="$(mktemp -d /tmp/bua-parallel.XXXXXX)"
export BUA_HOME="$tmp/home" BUA_LISTEN=127.0.0.1:0 CI=true
bua="$tmp/bua"
cleanup() {
	"$bua" browser stop >/dev/null 2>&1 || true
	"$bua" stop >/dev/null 2>&1 || true
	rm -rf "$tmp"
}
trap cleanup EXIT
CGO_ENABLED=0 go build -o "$bua" ./cmd/bua

# Six flows that mostly wait: a page whose #done appears after 2 s.
mkdir -p "$tmp/site" "$tmp/wait" "$tmp/read"
cat >"$tmp/site/wait.html" <<'HTML'
<!doctype html><title>wait</title><p>waiting</p>
<script>setTimeout(() => { const d = document.createElement("p"); d.id = "done"; d.textContent = "done"; document.body.append(d); }, 2000);</script>
HTML
for i in 1 2 3 4 5 6; do
	cat >"$tmp/wait/w$i.yaml" <<YAML
name: w$i
steps:
  - navigate: \${{ vars.base_url }}/wait.html
  - wait_for: { selector: "#done", timeoutMs: 10000 }
  - evaluate: "return document.title"
YAML
done
# Twelve flows that read a real page: six corpus articles, twice each.
n=0
for a in $(ls testdata/corpus/articles/*.html.gz | head -6); do
	n=$((n + 1))
	# Without their external resources (no network here: a load would
	# wait for them to time out).
	gunzip -c "$a" | sed -E 's#(src|href|srcset)="(https?:)?//[^"]*"#\1="data:,"#g' >"$tmp/site/a$n.html"
done
for i in $(seq 1 12); do
	cat >"$tmp/read/r$(printf %02d "$i").yaml" <<YAML
name: r$i
steps:
  - navigate: { url: "\${{ vars.base_url }}/a$(((i - 1) % 6 + 1)).html", waitUntil: domcontentloaded }
  - extract: {}
  - sleep: 1s
YAML
done

echo "== machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$bua" browser start --headless --count 6 >/dev/null
if part 1; then
echo "== 1. six flows that mostly wait: serial vs --parallel 3, $rounds rounds (load $(cut -d' ' -f1-3 /proc/loadavg))"
go run ./bench/abtime -n "$rounds" -w 1 \
	-c "$bua run -q --serve $tmp/site $tmp/wait" \
	-c "$bua run -q --parallel 3 --serve $tmp/site $tmp/wait"
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"

fi
if part 2; then
echo "== 2. PSS per managed browser (process group), MB"
"$bua" status --json | python3 -c '
import json, os, sys
st = json.load(sys.stdin)
def pss(pid):
    try:
        for line in open(f"/proc/{pid}/smaps_rollup"):
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0
groups = {}
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            pgid = os.getpgid(int(p))
        except OSError:
            continue
        groups.setdefault(pgid, []).append(int(p))
for b in st["managedBrowsers"]:
    procs = groups.get(b["pid"], [])
    name, pid = b["name"], b["pid"]
    print(f"   {name:10s} pid {pid:7d}  {len(procs):2d} processes  PSS {sum(pss(q) for q in procs)/1024:6.0f} MB")
'

fi
if part 3; then
echo "== 3. twelve page reads at --parallel 1 2 3 4 6, $rounds rounds (load $(cut -d' ' -f1-3 /proc/loadavg))"
go run ./bench/abtime -n "$rounds" -w 1 \
	-c "$bua run -q --serve $tmp/site $tmp/read" \
	-c "$bua run -q --parallel 2 --serve $tmp/site $tmp/read" \
	-c "$bua run -q --parallel 3 --serve $tmp/site $tmp/read" \
	-c "$bua run -q --parallel 4 --serve $tmp/site $tmp/read" \
	-c "$bua run -q --parallel 6 --serve $tmp/site $tmp/read"
echo "   load after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
