#!/usr/bin/env bash
# npm_shim.sh: what a `bua` that npm put on PATH costs against the bare
# binary (BENCHMARKS.md §bua through npm), whole processes interleaved
# with bench/abtime:
#
#   bench/npm_shim.sh             # 300 rounds of each command
#   N=100 bench/npm_shim.sh       # fewer
#   bench/npm_shim.sh dist        # the binary of a `scripts/release --snapshot` dist/
#
# It packs bua for this machine with npm/build.mjs (from DIST, else from a
# dist/ it builds with internal/devbuild as GoReleaser lays one out), and
# installs the packages with npm from the tarballs, offline, into two
# prefixes:
#   linked:   install scripts on: the postinstall put the binary in the
#             launcher's place (npm's link on PATH -> the binary);
#   launcher: --ignore-scripts: npm's link -> bin/bua.js, the Node launcher,
#             which starts the binary.
# (npm installs both packages side by side there, where a registry install
# nests the platform package under the launcher: the launcher finds it one
# directory further up, a few stat calls.)
# Then, against one daemon and a headless managed Chromium of a fresh
# BUA_HOME, it times `bua --version` and `bua eval 'return 1' --tab T`
# through each against the bare binary, A B A B ... in each order, and `npx bua
# --version` from a project that has bua installed (the start an MCP host
# pays through npx, once per server), fewer rounds.
#
# Needs Go, Node 18+ with npm, and Chromium (as the e2e tests do).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${N:-300}
dist=${1:-}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bua-npm-bench.XXXXXX")
export BUA_HOME=$tmp/h BUA_LISTEN=127.0.0.1:0 CI=true
bare=""
cleanup() {
  if [ -n "$bare" ]; then
    "$bare" browser stop >/dev/null 2>&1 || true
    "$bare" stop >/dev/null 2>&1 || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT

goos=$(go env GOOS) goarch=$(go env GOARCH)
case $goos in windows) os=win32 ;; *) os=$goos ;; esac
case $goarch in amd64) cpu=x64 ;; *) cpu=$goarch ;; esac
key=$os-$cpu

# --- the packages --------------------------------------------------------------
if [ -z "$dist" ]; then
  dist=$tmp/dist
  mkdir -p "$dist"
  target=${goos}_${goarch}_v1
  [ "$goarch" = arm64 ] && target=${goos}_${goarch}_v8.0
  echo "=== build bua for $goos/$goarch into $dist (internal/devbuild)"
  go run ./internal/devbuild/build "$dist/bua_$target/bua"
  printf '[{"name":"bua","path":"%s","goos":"%s","goarch":"%s","target":"%s","internal_type":4,"type":"Binary","extra":{"Binary":"bua","ID":"bua"}}]\n' \
    "$dist/bua_$target/bua" "$goos" "$goarch" "$target" >"$dist/artifacts.json"
  echo '{"project_name":"bua","version":"0.0.0-bench"}' >"$dist/metadata.json"
fi
echo "=== pack @bua-dev/bua and @bua-dev/bua-$key (npm/build.mjs)"
node npm/build.mjs --dist "$dist" --out "$tmp/npm" --platforms "$key" >/dev/null
tarballs=("$tmp"/npm/*.tgz)

# npm as a user who never ran it: its own HOME, cache and config, offline.
npm_() {
  HOME=$tmp/home npm_config_cache=$tmp/cache npm_config_userconfig=$tmp/npmrc \
    npm_config_update_notifier=false npm_config_audit=false npm_config_fund=false \
    npm "$@" --offline
}
echo "=== install: linked (install scripts) and launcher (--ignore-scripts)"
npm_ install -g --prefix "$tmp/linked" "${tarballs[@]}" >/dev/null
npm_ install -g --prefix "$tmp/launcher" --ignore-scripts "${tarballs[@]}" >/dev/null
mkdir -p "$tmp/project"
echo '{"name":"bench","private":true}' >"$tmp/project/package.json"
(cd "$tmp/project" && npm_ install "${tarballs[@]}" >/dev/null)
linked=$tmp/linked/bin/bua
launcher=$tmp/launcher/bin/bua
bare=$(node -e 'console.log(require(process.argv[1]).findBinary())' "$tmp/linked/lib/node_modules/@bua-dev/bua/lib/platform.js")
[ "$(head -c 4 "$tmp/linked/lib/node_modules/@bua-dev/bua/bin/bua.js")" = $'\x7fELF' ] ||
  { echo "npm_shim: the postinstall did not put the binary in the launcher's place" >&2; exit 1; }
head -1 "$tmp/launcher/lib/node_modules/@bua-dev/bua/bin/bua.js" | grep -q '^#!/usr/bin/env node' ||
  { echo "npm_shim: --ignore-scripts left no Node launcher" >&2; exit 1; }
for b in "$bare" "$linked" "$launcher"; do "$b" --version >/dev/null; done

# --- the daemon and a tab --------------------------------------------------------
echo "=== bua browser start --headless (BUA_HOME=$BUA_HOME)"
"$bare" browser start --headless >/dev/null
tab=$("$bare" open about:blank) # prints the new tab's id
[[ $tab =~ ^[0-9]+$ ]] || { echo "npm_shim: bua open printed $tab, not a tab id" >&2; exit 1; }
"$bare" eval 'return 1' --tab "$tab" >/dev/null

go build -o "$tmp/abtime" ./bench/abtime
# ab ROUNDS A B: A and B interleaved, then again with B first, so that
# neither always runs right after the other (a Node launcher's run leaves
# the caches and the scheduler to the next command); abtime prints each
# one's median and its paired ratio to the first.
ab() {
  "$tmp/abtime" -n "$1" -c "$2" -c "$3"
  "$tmp/abtime" -n "$1" -c "$3" -c "$2"
}
ev="eval 'return 1' --tab $tab"
echo "=== bua --version: bare and linked ($n rounds, each order)"
ab "$n" "$bare --version" "$linked --version"
echo "=== bua $ev: bare and linked ($n rounds, each order)"
ab "$n" "$bare $ev" "$linked $ev"
echo "=== bua --version: bare and launcher ($((n / 3)) rounds, each order)"
ab "$((n / 3))" "$bare --version" "$launcher --version"
echo "=== bua $ev: bare and launcher ($((n / 3)) rounds, each order)"
ab "$((n / 3))" "$bare $ev" "$launcher $ev"
# npx resolves bua in the project's node_modules/.bin and runs it through a
# shell: what `npx -y @bua-dev/bua mcp` costs once, at an MCP server's
# start, once npx has it in its cache. npx runs in the project, with the
# benchmark's npm configuration (sh's own start, ~1 ms, is in the figure).
cat >"$tmp/npx.sh" <<EOF
#!/bin/sh
cd "$tmp/project" && HOME=$tmp/home npm_config_cache=$tmp/cache npm_config_userconfig=$tmp/npmrc npm_config_update_notifier=false exec npx --offline bua --version
EOF
chmod +x "$tmp/npx.sh"
echo "=== npx bua --version and bua --version ($((n / 10)) rounds)"
"$tmp/abtime" -n "$((n / 10))" -w 3 -c "$bare --version" -c "$tmp/npx.sh"
echo "(load average at the end: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime))"
