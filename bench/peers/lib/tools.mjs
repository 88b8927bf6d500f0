// The three tools, each pointed at the same Chromium, headless:
//   Bua          the bua CLI, its daemon and managed browser (BUA_CHROME),
//                plus buaclient, a long-lived Go bridge.Client
//   AgentBrowser agent-browser's native CLI and its daemon
//                (AGENT_BROWSER_EXECUTABLE_PATH), in a HOME of its own
//   Playwright   playwright-core in this process (executablePath)
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { run, tree, waitGone } from './proc.mjs';

/** chromeArgs are the flags every tool's browser gets besides its own. */
export function chromeArgs() {
  // The machine's closed network otherwise costs refused connections at
  // start; Chromium refuses to run as root with its sandbox.
  const args = ['--disable-background-networking', '--disable-component-update'];
  if (process.getuid?.() === 0) args.push('--no-sandbox');
  return args;
}

/** Bua drives one BUA_HOME: its daemon, managed browser and Go client. */
export class Bua {
  /** o: { bin, client, home, chrome } */
  constructor(o) {
    this.o = o;
    mkdirSync(o.home, { recursive: true, mode: 0o700 });
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BUA_')));
    // CI=true lets the daemon launch the managed browser unprompted
    // (pkg/bridge MayAutoLaunch), as a fresh machine would.
    this.env = { ...env, BUA_HOME: o.home, BUA_LISTEN: '127.0.0.1:0', BUA_CHROME: o.chrome, CI: 'true' };
  }

  /** cli runs one whole `bua` process; resolves to { ms, stdout, ... }. */
  cli(args, opts = {}) { return run(this.o.bin, args, { env: this.env, ...opts }); }

  /** start launches the daemon and managed browser, then dials the Go client. */
  async start() {
    await this.cli(['browser', 'start', '--headless'], { timeoutMs: 90_000 });
    this.child = spawn(this.o.client, [], { env: this.env, stdio: ['pipe', 'pipe', 'inherit'] });
    this.lines = createInterface({ input: this.child.stdout })[Symbol.asyncIterator]();
  }

  /**
   * request sends a protocol action through the Go client n times;
   * resolves to { ms: [...], result }. An error reply rejects.
   */
  async request(action, n = 1) {
    this.child.stdin.write(JSON.stringify({ action, n }) + '\n');
    const { value, done } = await this.lines.next();
    if (done) throw new Error('buaclient exited');
    const r = JSON.parse(value);
    if (r.error) throw new Error(`bua ${action.type}: ${r.error.code}: ${r.error.message}`);
    return r;
  }

  /** openTab opens url in a new tab and returns its id. */
  async openTab(url) { return (await this.request({ type: 'open_tab', url })).result.tabId; }

  /** pids: the daemon's pid and the managed browser's, from `bua status --json`. */
  async pids() {
    const s = JSON.parse((await this.cli(['status', '--json'])).stdout);
    if (!s.managed?.running) throw new Error(`bua status: no managed browser running: ${JSON.stringify(s.managed)}`);
    return { driver: s.pid, browser: s.managed.pid };
  }

  /** stop stops the managed browser and the daemon and waits for both to exit. */
  async stop() {
    let pids = [];
    try { const p = await this.pids(); pids = [p.driver, ...tree(p.browser)]; } catch { /* not running */ }
    this.child?.stdin.end();
    await this.cli(['stop'], { allowFail: true });
    await waitGone(pids);
  }
}

/** AgentBrowser drives one agent-browser session in a HOME of its own. */
export class AgentBrowser {
  /** o: { bin, home, chrome, session } */
  constructor(o) {
    this.o = o;
    mkdirSync(o.home, { recursive: true });
    this.env = {
      ...process.env,
      HOME: o.home,
      AGENT_BROWSER_SESSION: o.session ?? 'bench',
      AGENT_BROWSER_EXECUTABLE_PATH: o.chrome,
      AGENT_BROWSER_ARGS: chromeArgs().join(','),
      // Its start would otherwise ask a remote host about Chrome's version.
      AGENT_BROWSER_NO_VERSION_CHECK: '1',
    };
  }

  cli(args, opts = {}) { return run(this.o.bin, args, { env: this.env, ...opts }); }

  /** pids: its daemon's pid (from its pid file) and the browser it launched. */
  pids() {
    const file = join(this.o.home, '.agent-browser', `${this.env.AGENT_BROWSER_SESSION}.pid`);
    const driver = Number(readFileSync(file, 'utf8').trim());
    const browser = tree(driver).slice(1).find((p) => {
      try { return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--user-data-dir'); } catch { return false; }
    });
    if (!browser) throw new Error(`agent-browser daemon ${driver} has no browser child`);
    return { driver, browser };
  }

  /** stop closes the session's browser and daemon and waits for both to exit. */
  async stop() {
    let pids = [];
    try { const p = this.pids(); pids = [p.driver, ...tree(p.browser)]; } catch { /* not running */ }
    await this.cli(['close'], { allowFail: true });
    await waitGone(pids).catch(() => pids.forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }));
  }
}

/** loadPlaywright imports playwright-core from the scratch folder. */
export function loadPlaywright(benchDir) {
  return createRequire(join(benchDir, 'node_modules', '/'))('playwright-core');
}

/** launchOptions are Playwright's, for the same Chromium and flags. */
export function launchOptions(chrome) {
  return { executablePath: chrome, headless: true, args: chromeArgs() };
}

/** freshDir makes an empty directory (removed first if it exists). */
export function freshDir(dir) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}
