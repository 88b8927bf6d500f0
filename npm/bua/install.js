// postinstall: where it is safe, put bua's native binary in the place of
// the launcher (bin/bua.js), so that the `bua` npm links on PATH runs the
// binary itself and no Node process starts in front of every command
// (esbuild's optimization; BENCHMARKS.md §bua through npm gives the cost
// it saves). It never fails the install: whatever it cannot do leaves the
// launcher, which works on its own and says what is wrong when run.
//
// It leaves the launcher in place:
// - on Windows, where npm's shims (bua.cmd, bua.ps1) run `node bin/bua.js`
//   and a native binary must be named .exe;
// - under any package manager but npm: pnpm's and yarn's shims, and bun's
//   on Windows, are scripts that run `node` on the file, which would then
//   be asked to parse an executable;
// - when the platform package is missing or its binary does not run here.
//
// Safe to run again (npm rebuild): it reads only the platform package,
// never bin/bua.js, which may already be the binary.
"use strict";

const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { findBinary } = require("./lib/platform.js");

function warn(msg) {
  process.stderr.write(`bua postinstall: ${msg}; \`bua\` runs through its Node launcher\n`);
}

function main() {
  let bin;
  try {
    bin = findBinary();
  } catch (err) {
    warn(err.message);
    return;
  }
  try {
    // The binary must start on this machine (not a noexec mount, not
    // another CPU's): only then may it stand in for the launcher.
    execFileSync(bin, ["--version"], { stdio: "ignore", timeout: 30000 });
  } catch (err) {
    warn(`${bin} --version failed (${err.message})`);
    return;
  }
  if (process.platform === "win32") return;
  const agent = process.env.npm_config_user_agent || "";
  if (!agent.startsWith("npm/")) return;

  const target = path.join(__dirname, "bin", "bua.js");
  const tmp = path.join(__dirname, "bin", `.bua-${process.pid}.tmp`);
  try {
    try {
      // A hard link takes no space; a copy where links fail (another
      // file system, a store that forbids them).
      fs.linkSync(bin, tmp);
    } catch {
      fs.copyFileSync(bin, tmp);
      fs.chmodSync(tmp, 0o755);
    }
    // rename is atomic: bin/bua.js is the launcher or the binary, never a
    // half-written file.
    fs.renameSync(tmp, target);
  } catch (err) {
    warn(`could not put ${bin} in place of ${target} (${err.message})`);
  } finally {
    // When bin/bua.js already is a link to bin, rename succeeds and does
    // nothing (POSIX), and tmp is left behind.
    fs.rmSync(tmp, { force: true });
  }
}

main();
