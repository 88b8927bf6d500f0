#!/usr/bin/env node
// build.mjs writes bua's npm packages from a GoReleaser dist/ folder and
// packs each into a .tgz that `npm publish` takes:
//
//   node npm/build.mjs --dist dist --out dist/npm [--version V]
//                      [--platforms linux-x64,darwin-arm64] [--build-id ID]
//
// - one package per OS and CPU, @bua-dev/bua-<os>-<cpu> (npm/bua/lib/platform.js
//   lists them), with `os` and `cpu` set and the binary in bin/;
// - the launcher, @bua-dev/bua (npm/bua/), which lists them all as
//   optionalDependencies at exactly its own version.
//
// The binaries are found through dist/artifacts.json, which GoReleaser
// writes, never by guessing folder names; the version is dist/metadata.json's
// unless --version gives one. OUT gets a folder per package, its .tgz, and
// packages.json: the packages in the order to publish them (the launcher
// last, so that no one installs it before the binaries it names exist).
// --platforms builds a subset (and a launcher that names only those), for
// local tests and benchmarks; a release builds all six.
//
// Needs only Node 18+ and npm. Packing is reproducible: npm pack stamps
// every file with one fixed date and normalized modes, so the same dist/
// gives the same tarballs.

import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const launcherSrc = path.join(here, "bua");
const { PLATFORMS, packageName, binaryName } = createRequire(import.meta.url)(
  path.join(launcherSrc, "lib", "platform.js"),
);

// GoReleaser's artifact types (internal/artifact in goreleaser v2): both a
// build's output (Binary, 4) and a binary copied out for upload
// (UploadableBinary, 2) are written as type "Binary"; only the first is
// the build's own file.
const UPLOADABLE_BINARY = 2;
// The variant of a GOARCH that runs on every CPU of it, preferred when a
// build made several (goamd64 v1..v4, goarm64 v8.0..).
const BASELINE = { amd64: ["", "v1"], arm64: ["", "v8.0"] };

function fail(msg) {
  process.stderr.write(`npm/build.mjs: ${msg}\n`);
  process.exit(1);
}

function readJSON(file, what) {
  let text;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    fail(`cannot read ${what} ${file}: ${err.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    fail(`${file} is not JSON: ${err.message}`);
  }
}

const { values: opts } = parseArgs({
  options: {
    dist: { type: "string" },
    out: { type: "string" },
    version: { type: "string" },
    platforms: { type: "string" },
    "build-id": { type: "string" },
    binary: { type: "string", default: "bua" },
  },
  strict: true,
});
if (!opts.dist || !opts.out) fail("usage: node npm/build.mjs --dist DIR --out OUT [--version V] [--platforms a,b] [--build-id ID]");
const dist = path.resolve(opts.dist);
const out = path.resolve(opts.out);

// The version: npm takes semver only (a snapshot's, 0.0.1-SNAPSHOT-8b196a5
// from .goreleaser.yaml's version_template, is one), without the tag's v.
let version = opts.version ?? readJSON(path.join(dist, "metadata.json"), "GoReleaser's").version;
version = String(version ?? "").replace(/^v/, "");
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$/;
if (!SEMVER.test(version)) fail(`version ${JSON.stringify(version)} is not semver, which npm needs; give --version`);

let keys = Object.keys(PLATFORMS);
if (opts.platforms) {
  keys = opts.platforms.split(",").map((s) => s.trim());
  for (const k of keys) if (!PLATFORMS[k]) fail(`--platforms: no platform ${k} (there are: ${Object.keys(PLATFORMS).join(", ")})`);
}

// --- the binaries, from artifacts.json ---------------------------------------

const artifacts = readJSON(path.join(dist, "artifacts.json"), "GoReleaser's");
if (!Array.isArray(artifacts)) fail(`${path.join(dist, "artifacts.json")} is not a list of artifacts`);
const binaries = artifacts.filter(
  (a) =>
    a.type === "Binary" &&
    a.internal_type !== UPLOADABLE_BINARY &&
    a.extra?.Binary === opts.binary &&
    (!opts["build-id"] || a.extra?.ID === opts["build-id"]),
);

// resolveArtifact is the file an artifact's path names. GoReleaser writes
// the path relative to the folder it ran in, the project, which holds
// dist/ (dist: build/dist puts it further down), or absolute for a file
// outside that folder. A build's binary is always inside dist/, so the
// base is the nearest folder above dist/ from which the path lands in it;
// the caller's working directory plays no part (its own dist/ may be
// another build's).
function resolveArtifact(a) {
  const p = a.path;
  if (path.isAbsolute(p)) {
    if (!fs.existsSync(p)) fail(`artifacts.json names ${p} for ${a.goos}/${a.goarch}, which is not there`);
    return p;
  }
  for (let base = path.dirname(dist); ; base = path.dirname(base)) {
    const f = path.resolve(base, p);
    if (f.startsWith(dist + path.sep)) {
      if (!fs.existsSync(f)) fail(`artifacts.json names ${p} for ${a.goos}/${a.goarch}, which is not at ${f}`);
      return f;
    }
    if (path.dirname(base) === base) break;
  }
  fail(`artifacts.json names ${p} for ${a.goos}/${a.goarch}, which is not inside ${dist} from any folder above it`);
}

function binaryFor(key) {
  const { goos, goarch } = PLATFORMS[key];
  const variant = (a) => (goarch === "amd64" ? a.goamd64 : goarch === "arm64" ? a.goarm64 : "") ?? "";
  let found = binaries.filter((a) => a.goos === goos && a.goarch === goarch);
  const baseline = found.filter((a) => BASELINE[goarch].includes(variant(a)));
  if (baseline.length > 0) found = baseline;
  else if (found.length > 0) process.stderr.write(`npm/build.mjs: no baseline ${goarch} build for ${goos}; using ${variant(found[0])}\n`);
  // A macOS universal binary (goarch "all") serves both CPUs when the
  // build made no binary for one of them.
  if (found.length === 0 && goos === "darwin") found = binaries.filter((a) => a.goos === goos && a.goarch === "all");
  if (found.length === 0) {
    fail(
      `artifacts.json has no ${opts.binary} binary for ${goos}/${goarch} (npm's ${key})` +
        (opts["build-id"] ? ` with build id ${opts["build-id"]}` : "") +
        `; it has: ${binaries.map((a) => `${a.goos}/${a.goarch}${variant(a) ? "_" + variant(a) : ""}`).join(", ") || "none"}`,
    );
  }
  const ids = [...new Set(found.map((a) => a.extra?.ID))];
  if (found.length > 1) fail(`artifacts.json has ${found.length} ${opts.binary} binaries for ${key} (build ids ${ids.join(", ")}); pick one with --build-id`);
  return resolveArtifact(found[0]);
}

const sources = Object.fromEntries(keys.map((k) => [k, binaryFor(k)]));

// --- the package folders -------------------------------------------------------

// OUT is wiped first, but only when it is empty or was written by this
// script (its packages.json), never a folder that holds something else.
if (fs.existsSync(out) && fs.readdirSync(out).length > 0) {
  if (!fs.existsSync(path.join(out, "packages.json"))) fail(`--out ${out} holds files this script did not write; give an empty or new folder`);
  fs.rmSync(out, { recursive: true });
}
fs.mkdirSync(out, { recursive: true });

const template = readJSON(path.join(launcherSrc, "package.json"), "the launcher's");
const license = path.join(root, "LICENSE");
if (!fs.existsSync(license)) fail(`${license} is missing: every package ships the licence its package.json names (${template.license})`);
// The fields every package shares with the launcher (npm's provenance
// checks repository against the repository that built it).
const common = {
  version,
  homepage: template.homepage,
  repository: template.repository,
  license: template.license,
};

function writeJSON(file, v) {
  fs.writeFileSync(file, JSON.stringify(v, null, 2) + "\n");
}

function addLicense(dir) {
  fs.copyFileSync(license, path.join(dir, "LICENSE"));
}

const packages = []; // in publish order
for (const key of keys) {
  const name = packageName(key);
  const dir = path.join(out, `bua-${key}`);
  const bin = path.join(dir, "bin", binaryName(key));
  fs.mkdirSync(path.dirname(bin), { recursive: true });
  fs.copyFileSync(sources[key], bin);
  fs.chmodSync(bin, 0o755);
  const [os, cpu] = key.split("-");
  writeJSON(path.join(dir, "package.json"), {
    name,
    ...common,
    description: `bua's binary for ${key}; install @bua-dev/bua, which picks the right one`,
    os: [os],
    cpu: [cpu],
    files: [`bin/${binaryName(key)}`],
    // Yarn 2+ would otherwise keep the binary inside a zip archive.
    preferUnplugged: true,
  });
  fs.writeFileSync(
    path.join(dir, "README.md"),
    `# ${name}\n\nThe \`bua\` binary for ${key}. Install [\`@bua-dev/bua\`](https://www.npmjs.com/package/@bua-dev/bua) ` +
      `instead: it depends on this package on ${key} only, and runs it.\n`,
  );
  addLicense(dir);
  packages.push({ name, dir });
}

const launcherDir = path.join(out, "bua");
for (const f of template.files) {
  fs.mkdirSync(path.dirname(path.join(launcherDir, f)), { recursive: true });
  fs.copyFileSync(path.join(launcherSrc, f), path.join(launcherDir, f));
}
fs.chmodSync(path.join(launcherDir, template.bin.bua), 0o755);
fs.copyFileSync(path.join(launcherSrc, "README.md"), path.join(launcherDir, "README.md"));
addLicense(launcherDir);
writeJSON(path.join(launcherDir, "package.json"), {
  ...template,
  ...common,
  optionalDependencies: Object.fromEntries(keys.map((k) => [packageName(k), version])),
});
packages.push({ name: template.name, dir: launcherDir });

// --- pack ------------------------------------------------------------------------

for (const p of packages) {
  // --ignore-scripts: packing runs none of the package's scripts; the cwd is
  // OUT so that no package.json of the checkout is taken for a workspace.
  // On Windows npm is npm.cmd, which only a shell runs: quote the paths.
  const win = process.platform === "win32";
  const q = (s) => (win ? `"${s}"` : s);
  const json = execFileSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", q(out), q(p.dir)], {
    cwd: out,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    shell: win,
  });
  // npm 11 prints a list of what it packed; npm 12 an object keyed by name.
  const parsed = JSON.parse(json);
  const res = Array.isArray(parsed) ? parsed[0] : parsed?.[p.name];
  if (!res?.filename) fail(`npm pack ${p.dir} printed no tarball's name: ${json}`);
  p.tarball = res.filename;
  p.integrity = res.integrity;
  p.dir = path.basename(p.dir);
}
writeJSON(
  path.join(out, "packages.json"),
  packages.map(({ name, dir, tarball, integrity }) => ({ name, version, dir, tarball, integrity })),
);
for (const p of packages) process.stdout.write(`${path.join(opts.out, p.tarball)}\n`);
