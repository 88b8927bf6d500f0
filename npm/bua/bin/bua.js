#!/usr/bin/env node
// bua's npm launcher: runs the native binary of this machine's platform
// package with the same arguments and the same stdin, stdout and stderr,
// and ends as it ends. Where npm runs install scripts on Linux and macOS,
// install.js replaces this file with the binary itself, so no Node process
// stands in front of bua; this file is what runs otherwise (--ignore-scripts,
// Windows, pnpm, yarn).
"use strict";

const { spawn } = require("child_process");
const { findBinary } = require("../lib/platform.js");

let bin;
try {
  bin = findBinary();
} catch (err) {
  process.stderr.write(`bua: ${err.message}\n`);
  process.exit(1);
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });

// Forward the signals that end a process, so that a host that stops this
// launcher (an MCP client's SIGTERM, a closed terminal's SIGHUP) stops bua
// as it would stop bua itself, and bua cleans up (cancels its action in the
// browser, writes `mcp --record`'s flow). Ctrl-C in a terminal reaches bua
// directly too (same process group), so it gets SIGINT twice: bua acts on
// the first and ignores the rest (signal.NotifyContext in cmd/bua/main.go).
// On Windows the console sends Ctrl-C to bua itself and child.kill() is
// TerminateProcess, so SIGINT is only kept from ending this launcher first.
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    if (process.platform === "win32" && sig === "SIGINT") return;
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
  });
}

child.on("error", (err) => {
  process.stderr.write(`bua: cannot run ${bin}: ${err.message}\n`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what it would have seen
    // running bua itself; the exit code is the shell's form if that fails.
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
    process.exit(128 + (require("os").constants.signals[signal] || 0));
  }
  process.exit(code);
});
