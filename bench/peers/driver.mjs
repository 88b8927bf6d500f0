// bench/peers driver: bua against agent-browser and Playwright, and bua mcp
// against Playwright MCP and chrome-devtools-mcp, on the same pages and the
// same Chromium, interleaved round by round. Run it through
// bench/peers/run, which installs the peers and builds bua first; see
// bench/README.md. Configuration is by environment (PEERS_*, below).
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { readdirSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './lib/pages.mjs';
import { Bua, AgentBrowser, freshDir, loadPlaywright, launchOptions } from './lib/tools.mjs';
import { all } from './lib/scenarios.mjs';
import { write, table, plot, plotRows } from './lib/report.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const env = process.env;
const need = (k) => env[k] || fail(`${k} is not set: run bench/peers/run, not this file`);
const int = (k, def) => {
  if (env[k] === undefined || env[k] === '') return def;
  const v = Number(env[k]);
  if (!Number.isInteger(v) || v < 1) fail(`${k}=${env[k]}: want a whole number ≥ 1`);
  return v;
};
function fail(msg) { console.error(`bench/peers: ${msg}`); process.exit(2); }

const smoke = env.PEERS_SMOKE === '1';
const cfg = {
  smoke,
  rounds: int('PEERS_ROUNDS', smoke ? 1 : 5),
  n: int('PEERS_N', smoke ? 3 : 20), // samples per round, quick actions
  warmup: int('PEERS_WARMUP', smoke ? 1 : 3),
  nExtract: int('PEERS_N_EXTRACT', smoke ? 2 : 6), // samples per round on 100 buttons (half on 1,000, a quarter on 5,000)
  nFlow: int('PEERS_N_FLOW', smoke ? 1 : 3), // warm 50-step flows per round
  nCold: int('PEERS_N_COLD', smoke ? 1 : 2), // cold starts per round and tool
  buttons: smoke ? [100, 1000] : [100, 1000, 5000],
  pwPages: smoke ? ['input/scrollable.html'] : ['input/scrollable.html', 'offscreenbuttons.html', 'input/checkbox.html'],
  corpusPages: smoke ? 1 : 10,
  mcpPages: smoke ? 1 : 8, // real-world pages the MCP servers read
};
if (!smoke && cfg.rounds < 3) fail(`PEERS_ROUNDS=${cfg.rounds}: a full run needs at least 3 rounds (PEERS_SMOKE=1 for one)`);
const only = env.PEERS_ONLY ? new RegExp(env.PEERS_ONLY) : null;

const benchDir = need('BENCH_DIR');
const chrome = need('PEERS_CHROME');
const out = env.PEERS_OUT || (smoke ? join(benchDir, 'out') : join(root, 'bench'));
mkdirSync(out, { recursive: true });
const started = Date.now();
const log = (s) => console.error(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${s}`);

const sh = (cmd, args) => { try { return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return 'unknown'; } };
const meta = {
  date: new Date().toISOString(),
  commit: sh('git', ['-C', root, 'rev-parse', '--short', 'HEAD']) + (sh('git', ['-C', root, 'status', '--porcelain']) ? ' (with local changes)' : ''),
  machine: { cpus: cpus().length, cpu: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), kernel: sh('uname', ['-r']) },
  versions: {
    chromium: sh(chrome, ['--version']), node: process.version, go: sh('go', ['version']),
    'agent-browser': JSON.parse(readFileSync(join(benchDir, 'node_modules/agent-browser/package.json'))).version,
    'playwright-core': JSON.parse(readFileSync(join(benchDir, 'node_modules/playwright-core/package.json'))).version,
    'chart.js': JSON.parse(readFileSync(join(benchDir, 'node_modules/chart.js/package.json'))).version,
    '@playwright/mcp': JSON.parse(readFileSync(join(benchDir, 'node_modules/@playwright/mcp/package.json'))).version,
    'chrome-devtools-mcp': JSON.parse(readFileSync(join(benchDir, 'node_modules/chrome-devtools-mcp/package.json'))).version,
    '@modelcontextprotocol/sdk': JSON.parse(readFileSync(join(benchDir, 'node_modules/@modelcontextprotocol/sdk/package.json'))).version,
  },
  config: cfg,
};

const pages = await serve(root);
const corpus = readdirSync(join(root, 'testdata/corpus/articles')).filter((f) => f.endsWith('.html.gz')).map((f) => f.slice(0, -8)).sort();
const { chromium } = loadPlaywright(benchDir);
const launch = launchOptions(chrome);
const buaOpts = { bin: need('PEERS_BUA'), client: need('PEERS_BUACLIENT'), chrome };
const abOpts = { bin: need('PEERS_AGENT_BROWSER'), chrome };
// A fresh home each run: Chromium keeps an unpacked extension's service
// worker script in the profile, so a profile left by an earlier build
// would run that build's extension beside this build's daemon.
const bua = new Bua({ ...buaOpts, home: freshDir(join(benchDir, 'bh')) });
const ab = new AgentBrowser({ ...abOpts, home: join(benchDir, 'ah') });
let browser;
let code = 0;
// What a scenario started and must stop even when the run is interrupted
// (the MCP servers and their browsers).
const cleanups = [];
const cleanup = async () => {
  await Promise.all(cleanups.map((f) => f().catch((e) => console.error(`cleanup: ${e.message}`))));
  await browser?.close().catch(() => {});
  await bua.stop().catch((e) => console.error(`bua stop: ${e.message}`));
  await ab.stop().catch((e) => console.error(`agent-browser stop: ${e.message}`));
  await pages.close();
};
// An interrupted run still stops the daemons and browsers it started.
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => cleanup().finally(() => process.exit(130)));
try {
  log(`${smoke ? 'smoke' : 'full'} run: ${JSON.stringify({ rounds: cfg.rounds, n: cfg.n, warmup: cfg.warmup })}; pages at ${pages.base}`);
  await bua.start();
  await ab.cli(['open', 'about:blank'], { timeoutMs: 90_000 });
  browser = await chromium.launch(launch);
  const ctx = { cfg, base: pages.base, corpus, bua, ab, pw: { chromium, browser, launch }, benchDir, chrome, here: join(here, 'lib'), buaOpts, abOpts, log, cleanups };
  const measures = [];
  for (const [name, scenario] of Object.entries(all)) {
    if (only && !only.test(name)) continue;
    log(`== ${name}`);
    measures.push(...await scenario(ctx));
  }
  meta.seconds = Math.round((Date.now() - started) / 1000);
  const rows = write(join(out, 'results.json'), meta, measures);
  const md = table(rows);
  await plot(plotRows(rows), { chromium, launch, benchDir, png: join(out, 'peers.png'), title: `bua / peer, ${meta.date.slice(0, 10)}, commit ${meta.commit}, ${cfg.rounds} rounds` });
  writeFileSync(join(out, 'peers.md'), md);
  console.log(md);
  log(`wrote ${join(out, 'results.json')} and ${join(out, 'peers.png')} in ${meta.seconds} s`);
} catch (e) {
  console.error(`bench/peers: FAILED: ${e.stack || e}`);
  code = 1;
} finally {
  await cleanup();
}
process.exit(code);
