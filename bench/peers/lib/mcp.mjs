// MCP servers, every one driven by the same client, the official
// TypeScript SDK's (@modelcontextprotocol/sdk), over stdio, as an agent's
// host runs them. Each has a browser of its own, the same Chromium:
//
//   bua                  `bua mcp --headless`, on the harness's daemon and
//                        managed browser (the Bua tool's BUA_HOME)
//   playwright-mcp       @playwright/mcp --executable-path --headless --isolated
//   chrome-devtools-mcp  chrome-devtools-mcp --executablePath --headless --isolated
//
// and an adapter per server: the tool and arguments an agent would use to
// navigate, read the page, click and evaluate, and how to find an
// element's ref and a value in its answers.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { chromeArgs } from './tools.mjs';
import { tree, waitGone } from './proc.mjs';

/** loadSDK loads the client side of the TypeScript SDK from the scratch folder. */
export function loadSDK(benchDir) {
  const req = createRequire(join(benchDir, 'node_modules', '/'));
  return {
    Client: req('@modelcontextprotocol/sdk/client/index.js').Client,
    StdioClientTransport: req('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport,
  };
}

/** chars counts Unicode code points, as the other size figures do. */
export const chars = (s) => [...s].length;

/** text is a tool result's text content, as the model reads it. */
export const text = (res) => res.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n');

/**
 * McpClient is one MCP server, started over stdio, and the client that
 * drives it. def: { command, args, env, cwd }.
 */
export class McpClient {
  constructor(sdk, name, def) {
    this.sdk = sdk;
    this.name = name;
    this.def = def;
    this.stderr = '';
  }

  /** start spawns the server and completes the MCP handshake. */
  async start() {
    const { command, args, env, cwd } = this.def;
    this.transport = new this.sdk.StdioClientTransport({ command, args, env, cwd, stderr: 'pipe' });
    // Keep the end of the server's log for the error that needs it.
    this.transport.stderr?.on('data', (d) => { this.stderr = (this.stderr + d).slice(-3000); });
    this.client = new this.sdk.Client({ name: 'bua-bench', version: '1.0.0' });
    await this.client.connect(this.transport);
    // The client hands on parsed results; tools/list's size is that of the
    // JSON-RPC result as the server sent it, so keep the raw message.
    const on = this.transport.onmessage;
    this.transport.onmessage = (msg, extra) => {
      if (Array.isArray(msg.result?.tools)) this.toolsList = msg.result;
      on(msg, extra);
    };
  }

  /** toolsListChars is the size of tools/list's result: its JSON, compact. */
  async toolsListChars() {
    this.toolsList = null;
    const { tools } = await this.client.listTools();
    if (!this.toolsList || !tools.length) throw new Error(`${this.name}: tools/list gave no tools`);
    return chars(JSON.stringify(this.toolsList));
  }

  /**
   * call calls a tool; resolves to { ms, text, res }: ms from the
   * client's call to its result. A result with isError rejects.
   */
  async call(name, args) {
    const start = performance.now();
    const res = await this.client.callTool({ name, arguments: args });
    const ms = performance.now() - start;
    const t = text(res);
    if (res.isError) throw new Error(`${this.name} ${name} ${JSON.stringify(args)}: ${t.slice(0, 600)}`);
    return { ms, text: t, res };
  }

  /** stop closes the client, which ends the server; then waits for its processes (its browser too) to exit. */
  async stop() {
    const pids = this.transport?.pid ? tree(this.transport.pid) : [];
    await this.client?.close().catch(() => {});
    await waitGone(pids).catch(() => pids.forEach((p) => { try { process.kill(p, 'SIGKILL'); } catch { /* gone */ } }));
  }
}

/**
 * servers are the three servers' commands: bua's on the Bua tool's home
 * (so it uses the daemon and managed browser already running), the peers
 * on the same Chromium, headless, with a fresh in-memory profile each and
 * a folder of their own under benchDir (their HOME and working directory:
 * Playwright MCP writes its snapshots and logs there). settle0 adds
 * Playwright MCP with --timeout-settle 0, for the evaluate round trip.
 */
export function servers({ benchDir, chrome, bua, settle0 = false }) {
  const mod = (p) => join(benchDir, 'node_modules', p);
  const home = (name) => { const d = join(benchDir, name); mkdirSync(d, { recursive: true }); return d; };
  const root = process.getuid?.() === 0;
  const pw = (dir, extra = []) => ({
    command: process.execPath,
    // Playwright launches Chromium with --disable-background-networking
    // and --disable-component-update itself; as root it needs --no-sandbox.
    args: [mod('@playwright/mcp/cli.js'), '--executable-path', chrome, '--headless', '--isolated', '--output-dir', dir, ...(root ? ['--no-sandbox'] : []), ...extra],
    env: { ...process.env, HOME: dir }, cwd: dir,
  });
  const cd = home('mcp-cd');
  const out = {
    bua: { command: bua.o.bin, args: ['mcp', '--headless'], env: bua.env },
    'playwright-mcp': pw(home('mcp-pw')),
    'chrome-devtools-mcp': {
      command: process.execPath,
      args: [mod('chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js'), '--executablePath', chrome, '--headless', '--isolated',
        // Nothing leaves the machine: no usage statistics, no field data.
        '--no-usage-statistics', '--no-performance-crux', ...chromeArgs().map((a) => `--chromeArg=${a}`)],
      // Its start would otherwise ask the registry for its latest version.
      env: { ...process.env, HOME: cd, CHROME_DEVTOOLS_MCP_NO_UPDATE_CHECKS: '1' }, cwd: cd,
    },
  };
  if (settle0) out[SETTLE0] = pw(home('mcp-pw0'), ['--timeout-settle', '0']);
  return out;
}

/** SETTLE0 names Playwright MCP without its settle wait after each action (500 ms by default). */
export const SETTLE0 = 'playwright-mcp --timeout-settle 0';

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** pick is the first group of re in s, or an error that shows s. */
function pick(s, re, what) {
  const m = re.exec(s);
  if (!m) throw new Error(`no ${what} in the answer: ${s.slice(0, 800)}`);
  return m[1];
}

/**
 * adapters say, per server, which tool and arguments an agent uses (each
 * gets the session's state: chrome-devtools-mcp's pageId), and how to read
 * its answers: ref finds the element of a role and name in a read's text,
 * value reads an evaluate's value, shows says whether a read is of url.
 */
export const adapters = {
  bua: {
    setup: async () => ({}),
    navigate: (_, url) => ['browser', { action: 'navigate', url }],
    read: () => ['browser', { action: 'extract' }],
    readAll: () => ['browser', { action: 'extract', maxElements: 5000 }],
    click: (_, ref) => ['browser', { action: 'click', uid: ref }],
    evaluate: (_, expr) => ['browser', { action: 'evaluate', expression: `return ${expr}` }],
    // An element line, or a later element of a run of one role on a line
    // (`e3 button "A", e4 "B"`).
    ref: (t, role, name) => {
      const q = esc(JSON.stringify(name));
      const m = new RegExp(`^\\s*(e\\d+) ${role} ${q}|^\\s*e\\d+ ${role} .*?, (e\\d+) ${q}`, 'm').exec(t);
      return m ? m[1] || m[2] : pick(t, /$^/, `${role} "${name}"`);
    },
    // A string prints as it is (as `bua eval` prints it), anything else as JSON.
    value: (t) => {
      const [type, v] = [pick(t, /^evaluate[^\n]*: (\w+)\n/, 'evaluate type'), pick(t, /<page-content nonce="\w+">\n([\s\S]*?)\n<\/page-content/, 'evaluate value')];
      return type === 'string' ? v : JSON.parse(v);
    },
    shows: (t, url) => t.includes(`at ${url} `),
  },
  'playwright-mcp': {
    setup: async () => ({}),
    navigate: (_, url) => ['browser_navigate', { url }],
    read: () => ['browser_snapshot', {}],
    click: (_, ref, element) => ['browser_click', { element, target: ref }],
    evaluate: (_, expr) => ['browser_evaluate', { function: `() => ${expr}` }],
    ref: (t, role, name) => pick(t, new RegExp(`- ${role} ${esc(JSON.stringify(name))}[^\\n]*?\\[ref=([^\\]]+)\\]`), `${role} "${name}"`),
    value: (t) => JSON.parse(pick(t, /^### Result\n([\s\S]*?)\n(?:###|$)/m, 'evaluate value')),
    shows: (t, url) => t.includes(`- Page URL: ${url}\n`),
  },
  'chrome-devtools-mcp': {
    // Its page-scoped tools need a pageId (--pageIdRouting, the default).
    setup: async (c) => ({ pageId: Number(pick((await c.call('list_pages', {})).text, /^(\d+): .*\[selected\]$/m, 'selected page')) }),
    navigate: (s, url) => ['navigate_page', { pageId: s.pageId, type: 'url', url }],
    read: (s) => ['take_snapshot', { pageId: s.pageId }],
    click: (s, ref) => ['click', { pageId: s.pageId, uid: ref }],
    evaluate: (s, expr) => ['evaluate_script', { pageId: s.pageId, function: `() => ${expr}` }],
    ref: (t, role, name) => pick(t, new RegExp(`uid=(\\S+) ${role} ${esc(JSON.stringify(name))}`), `${role} "${name}"`),
    value: (t) => JSON.parse(pick(t, /```json\n([\s\S]*?)\n```/, 'evaluate value')),
    shows: (t, url) => t.includes(`url="${url}"`),
  },
};
adapters[SETTLE0] = adapters['playwright-mcp'];

/**
 * Agent is a started server with its adapter and session state; its
 * methods are what an agent does, each one tool call: { ms, text }.
 */
export class Agent {
  constructor(client, adapter) { this.c = client; this.a = adapter; }

  static async start(sdk, name, def) {
    const c = new McpClient(sdk, name, def);
    try {
      await c.start();
      const agent = new Agent(c, adapters[name]);
      agent.s = await agent.a.setup(c);
      return agent;
    } catch (e) {
      await c.stop();
      throw new Error(`${name}: ${e.message}\n${c.stderr}`);
    }
  }

  get name() { return this.c.name; }
  do(step, ...args) { const [tool, a] = this.a[step](this.s, ...args); return this.c.call(tool, a); }
  navigate(url) { return this.do('navigate', url); }
  read() { return this.do('read'); }
  click(ref, element) { return this.do('click', ref, element); }
  evaluate(expr) { return this.do('evaluate', expr); }
  stop() { return this.c.stop(); }
}
