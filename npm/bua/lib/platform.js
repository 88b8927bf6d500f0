// Where bua's native binary comes from when bua is installed with npm.
//
// The layout is esbuild's: this launcher package (@bua-dev/bua) lists one
// package per OS and CPU as optionalDependencies, each with `os` and `cpu`
// set, so npm installs only the one that fits the machine and skips the
// rest. Finding it needs no install script, which is why the launcher
// works with --ignore-scripts. npm/build.mjs imports this list too, so the
// packages it writes and the ones looked for here cannot drift apart.
"use strict";

const path = require("path");

const SCOPE = "@bua-dev";

// Node's `${process.platform}-${process.arch}` for each package, with the
// Go target whose binary it carries (GOOS/GOARCH).
const PLATFORMS = {
  "linux-x64": { goos: "linux", goarch: "amd64" },
  "linux-arm64": { goos: "linux", goarch: "arm64" },
  "darwin-x64": { goos: "darwin", goarch: "amd64" },
  "darwin-arm64": { goos: "darwin", goarch: "arm64" },
  "win32-x64": { goos: "windows", goarch: "amd64" },
  "win32-arm64": { goos: "windows", goarch: "arm64" },
};

function packageName(key) {
  return `${SCOPE}/bua-${key}`;
}

function binaryName(key) {
  return key.startsWith("win32-") ? "bua.exe" : "bua";
}

// findBinary is the path of the native binary for this machine, from the
// platform package npm installed beside (or under) the launcher. It
// throws an Error whose message says what to do when there is none.
function findBinary() {
  const key = `${process.platform}-${process.arch}`;
  if (!PLATFORMS[key]) {
    throw new Error(
      `there is no npm package of bua for ${key} (there are: ${Object.keys(PLATFORMS).join(", ")}); ` +
        `build it from source instead: https://github.com/bua-dev/bua#install-and-first-steps`,
    );
  }
  const name = packageName(key);
  let manifest;
  try {
    // require.resolve walks node_modules upwards as npm, pnpm and yarn lay
    // them out: nested under the launcher, or hoisted beside it.
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    const launcher = require("../package.json");
    throw new Error(
      `the package with bua's binary for this machine, ${name}, is not installed. ` +
        `npm skips it when optional dependencies are left out (--omit=optional, --no-optional, ` +
        `or a lockfile written on another OS). Install it beside ${launcher.name}:\n` +
        `  npm install ${name}@${launcher.version}\n` +
        `(with -g when ${launcher.name} was installed with -g)`,
    );
  }
  return path.join(path.dirname(manifest), "bin", binaryName(key));
}

module.exports = { SCOPE, PLATFORMS, packageName, binaryName, findBinary };
