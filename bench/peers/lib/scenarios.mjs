// The scenarios. Each runs its rounds itself and returns measures:
//
//   { id, title, unit, ops: { bua: '...', <peer>: '...' },
//     targets: { <peer>: ratio }, rounds: [{ bua: [samples], <peer>: [samples] }] }
//
// Within a round the tools take turns (bua first in even rounds, last in
// odd ones), each with its own warm-ups, so every tool sees the same
// machine load; the report compares bua with each peer round by round.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Bua, AgentBrowser, launchOptions, freshDir } from './tools.mjs';
import { tree, pssKB } from './proc.mjs';
import { flowSteps, buaFlowYAML, runPlaywright } from './flow.mjs';
import { interleave, timed, expect, count, rounds } from './measure.mjs';
import { mcp } from './mcpscenario.mjs';

const AB = 'agent-browser';
const PW = 'playwright';

/** One-shot: a whole CLI process per action, against a warm daemon and browser. */
export async function oneShot(ctx) {
  const { cfg, bua, ab } = ctx;
  const url = `${ctx.base}/sites/stale.html`;
  const tab = await bua.openTab(url);
  await ab.cli(['open', url]);
  const cli = (tool, args, check) => async () => { const r = await tool.cli(args); check(r); return r.ms; };
  const measures = [];
  const one = async (id, title, buaArgs, abArgs, buaCheck, abCheck, targets) => {
    ctx.log(`${id}`);
    measures.push({
      id, title, unit: 'ms', targets,
      ops: { bua: `bua ${buaArgs.join(' ')}`, [AB]: `agent-browser ${abArgs.join(' ')}` },
      rounds: await rounds(ctx, (r) => interleave(r, {
        bua: () => timed(cfg.n, cfg.warmup, cli(bua, [...buaArgs, '--tab', String(tab)], buaCheck)),
        [AB]: () => timed(cfg.n, cfg.warmup, cli(ab, abArgs, abCheck)),
      })),
    });
  };
  await one('oneshot-eval', 'one-shot eval', ['eval', 'return 1'], ['eval', '1'],
    (r) => expect(r.stdout.trim() === '1', 'bua eval should print 1', r.stdout),
    (r) => expect(r.stdout.trim() === '1', 'agent-browser eval should print 1', r.stdout), { [AB]: 1.0 });
  await one('oneshot-click', 'one-shot click', ['click', '#btn'], ['click', '#btn'],
    (r) => expect(r.stdout.startsWith('ok'), 'bua click should print ok', r.stdout),
    (r) => expect(r.stdout.includes('Done'), 'agent-browser click should print Done', r.stdout), {});

  // Extract reads a real-world page: bua's default output (markdown,
  // elements, verdict) against agent-browser's interactive snapshot.
  const page = `${ctx.base}/corpus/${ctx.corpus[0]}.html`;
  await bua.request({ type: 'navigate', tabId: tab, url: page });
  await ab.cli(['open', page]);
  await one('oneshot-extract', 'one-shot extract (real-world page)', ['extract'], ['snapshot', '-i'],
    (r) => expect(/^e\d+ link "/m.test(r.stdout), 'bua extract should list links', r.stdout),
    (r) => expect(r.stdout.includes('- link '), 'agent-browser snapshot should list links', r.stdout), { [AB]: 1.0 });
  await bua.request({ type: 'close_tab', tabId: tab });
  return measures;
}

/** In-process: bua's long-lived Go client against Playwright's page calls. */
export async function inProcess(ctx) {
  const { cfg, bua } = ctx;
  const url = `${ctx.base}/sites/form.html`;
  const tabId = await bua.openTab(url);
  const page = await ctx.pw.browser.newPage();
  await page.goto(url);
  // The Go client times inside its own process (the pipe stays outside):
  // one request of n runs after the warm-ups.
  const buaTimed = (action, check) => async () => {
    await bua.request(action, cfg.warmup);
    const r = await bua.request(action, cfg.n);
    check?.(r.result);
    return r.ms;
  };
  const cases = [
    ['inproc-click', 'in-process click', { type: 'click', tabId, selector: '#terms' }, "page.click('#terms')", () => page.click('#terms'), { [PW]: 0.6 }],
    ['inproc-type', 'in-process type', { type: 'type', tabId, selector: '#name', text: 'Ada' }, "page.fill('#name', 'Ada')", () => page.fill('#name', 'Ada'), {}],
    ['inproc-evaluate', 'in-process evaluate', { type: 'evaluate', tabId, expression: 'return 1' }, 'page.evaluate(() => 1)',
      async () => expect(await page.evaluate(() => 1) === 1, 'page.evaluate should return 1'), {},
      (res) => expect(res.value === 1, 'bua evaluate should return 1', JSON.stringify(res))],
    ['inproc-extract', 'in-process extract (form)', { type: 'extract', tabId }, "page.locator('body').ariaSnapshot()",
      async () => { const s = await page.locator('body').ariaSnapshot(); expect(s.includes('button "Submit"'), 'ariaSnapshot should list Submit', s); }, {},
      (res) => expect(res.elements.some((e) => e.name === 'Submit'), 'bua extract should list Submit', JSON.stringify(res).slice(0, 300))],
  ];
  const measures = [];
  for (const [id, title, action, pwOp, pwFn, targets, check] of cases) {
    ctx.log(id);
    measures.push({
      id, title, unit: 'ms', targets,
      ops: { bua: `Go client: ${JSON.stringify({ ...action, tabId: undefined })}`, [PW]: pwOp },
      rounds: await rounds(ctx, (r) => interleave(r, { bua: buaTimed(action, check), [PW]: () => timed(cfg.n, cfg.warmup, pwFn) })),
    });
  }
  await bua.request({ type: 'close_tab', tabId });
  await page.close();
  return measures;
}

/** Extract on N buttons: in process against ariaSnapshot, one-shot against snapshot -i. */
export async function buttons(ctx) {
  const { cfg, bua, ab } = ctx;
  const tabId = await bua.openTab('about:blank');
  const page = await ctx.pw.browser.newPage();
  const measures = [];
  for (const n of cfg.buttons) {
    const url = `${ctx.base}/gen/buttons.html?n=${n}`;
    await bua.request({ type: 'navigate', tabId, url });
    await page.goto(url);
    await ab.cli(['open', url]);
    const action = { type: 'extract', tabId, maxElements: 5000 };
    // Fewer samples on bigger pages: one 5,000-button extract takes seconds.
    const k = n <= 100 ? cfg.nExtract : n <= 1000 ? Math.ceil(cfg.nExtract / 2) : Math.max(2, Math.ceil(cfg.nExtract / 4));
    const w = 1;
    ctx.log(`extract-${n}`);
    measures.push({
      id: `extract-${n}`, title: `in-process extract, ${n} buttons`, unit: 'ms', targets: { [PW]: 1.5 },
      ops: { bua: 'Go client: {"type":"extract","maxElements":5000}', [PW]: "page.locator('body').ariaSnapshot()" },
      rounds: await rounds(ctx, (r) => interleave(r, {
        bua: async () => {
          await bua.request(action, w);
          const res = await bua.request(action, k);
          expect(res.result.elements.filter((e) => e.role === 'button').length === n, `bua extract should list ${n} buttons`, res.result.elements.length);
          return res.ms;
        },
        [PW]: () => timed(k, w, async () => {
          const s = await page.locator('body').ariaSnapshot();
          expect(count(s, /- button "/g) === n, `ariaSnapshot should list ${n} buttons`, count(s, /- button "/g));
        }),
      })),
    });
    ctx.log(`oneshot-extract-${n}`);
    measures.push({
      id: `oneshot-extract-${n}`, title: `one-shot extract, ${n} buttons`, unit: 'ms', targets: { [AB]: 1.0 },
      ops: { bua: 'bua extract --max-elements 5000', [AB]: 'agent-browser snapshot -i' },
      rounds: await rounds(ctx, (r) => interleave(r, {
        bua: () => timed(k, w, async () => {
          const res = await bua.cli(['extract', '--max-elements', '5000', '--tab', String(tabId)]);
          expect(count(res.stdout, /^e\d+ button "/gm) === n, `bua extract should list ${n} buttons`, count(res.stdout, /^e\d+ button "/gm));
          return res.ms;
        }),
        [AB]: () => timed(k, w, async () => {
          const res = await ab.cli(['snapshot', '-i']);
          expect(count(res.stdout, /- button "/g) === n, `agent-browser snapshot should list ${n} buttons`, count(res.stdout, /- button "/g));
          return res.ms;
        }),
      })),
    });
  }
  await bua.request({ type: 'close_tab', tabId });
  await page.close();
  return measures;
}

/**
 * Output size in characters (Unicode code points, trailing newline
 * dropped): bua's elements as text (`bua extract --format elements`, every
 * element: --max-elements 5000), agent-browser's `snapshot -i`, and
 * Playwright's ariaSnapshot of body. bua's default output (markdown too)
 * is recorded beside it, not compared.
 */
export async function outputSize(ctx) {
  const { bua, ab } = ctx;
  const tabId = await bua.openTab('about:blank');
  const page = await ctx.pw.browser.newPage();
  const chars = (s) => [...s.replace(/\n$/, '')].length;
  const pages = [...ctx.cfg.pwPages.map((p) => `sites/playwright/${p}`), ...ctx.corpus.slice(0, ctx.cfg.corpusPages).map((h) => `corpus/${h}.html`)];
  const measures = [];
  for (const p of pages) {
    const url = `${ctx.base}/${p}`;
    await bua.request({ type: 'navigate', tabId, url });
    await page.goto(url);
    await ab.cli(['open', url]);
    const name = p.replace(/^sites\/playwright\//, '').replace(/^corpus\/(.{8}).*/, 'corpus $1');
    ctx.log(`size ${name}`);
    const defaults = [];
    measures.push({
      id: `size-${name.replace(/[^a-z0-9.]+/gi, '-')}`, title: `output size, ${name}`, unit: 'chars', group: 'size', groupTitle: `output size, ${pages.length} pages`, targets: { [AB]: 0.8 },
      ops: { bua: 'bua extract --format elements --max-elements 5000', [AB]: 'agent-browser snapshot -i', [PW]: "page.locator('body').ariaSnapshot()" },
      page: url,
      buaDefaultChars: defaults,
      rounds: await rounds(ctx, (r) => interleave(r, {
        bua: async () => {
          defaults.push(chars((await bua.cli(['extract', '--max-elements', '5000', '--tab', String(tabId)])).stdout));
          return [chars((await bua.cli(['extract', '--format', 'elements', '--max-elements', '5000', '--tab', String(tabId)])).stdout)];
        },
        [AB]: async () => [chars((await ab.cli(['snapshot', '-i'])).stdout)],
        [PW]: async () => [chars(await page.locator('body').ariaSnapshot())],
      })),
    });
  }
  await bua.request({ type: 'close_tab', tabId });
  await page.close();
  return measures;
}

/**
 * Memory: PSS of the driver (bua's daemon, agent-browser's daemon, the
 * node process running a Playwright script) and of the browser's process
 * tree, each after opening the 1,000-button page and reading it once.
 */
export async function memory(ctx) {
  const { bua, ab } = ctx;
  const url = `${ctx.base}/gen/buttons.html?n=1000`;
  const tabId = await bua.openTab(url);
  const child = spawn(process.execPath, [join(ctx.here, 'pw-child.mjs'), ctx.benchDir, ctx.chrome, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ready = async () => {
    const { value, done } = await lines.next();
    expect(!done && value === 'ready', 'the Playwright child should print ready', value);
  };
  await ready();
  const sample = (pids) => ({ driver: pssKB([pids.driver]), browser: pssKB(tree(pids.browser)) });
  // Playwright's browser is the child's child: its tree is the child's, less the child.
  const pwSample = () => ({ driver: pssKB([child.pid]), browser: pssKB(tree(child.pid).slice(1)) });
  ctx.log('memory');
  const per = await rounds(ctx, (r) => interleave(r, {
    bua: async () => { await bua.request({ type: 'navigate', tabId, url }); await bua.request({ type: 'extract', tabId, maxElements: 5000 }); return sample(await bua.pids()); },
    [AB]: async () => { await ab.cli(['open', url]); await ab.cli(['snapshot', '-i']); return sample(ab.pids()); },
    [PW]: async () => { child.stdin.write('again\n'); await ready(); return pwSample(); },
  }));
  child.stdin.end();
  await new Promise((ok) => child.once('exit', ok));
  await bua.request({ type: 'close_tab', tabId });
  const pick = (part) => per.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, [v[part]]])));
  return [
    { id: 'memory-driver', title: 'memory, driver process (PSS)', unit: 'KiB', targets: {}, rounds: pick('driver'),
      ops: { bua: 'bua daemon', [AB]: 'agent-browser daemon', [PW]: 'node running playwright-core' } },
    { id: 'memory-browser', title: 'memory, browser process tree (PSS)', unit: 'KiB', targets: {}, rounds: pick('browser'),
      ops: { bua: 'managed Chromium + extension', [AB]: "agent-browser's Chromium", [PW]: "Playwright's Chromium" } },
  ];
}

/** Cold start: nothing running, then the first page loaded. */
export async function coldStart(ctx) {
  const { cfg } = ctx;
  const url = `${ctx.base}/sites/form.html`;
  ctx.log('cold-start');
  const rs = await rounds(ctx, (r) => interleave(r, {
    bua: () => timed(cfg.nCold, 0, async () => {
      const b = new Bua({ ...ctx.buaOpts, home: freshDir(join(ctx.benchDir, 'cb')) });
      try {
        const res = await b.cli(['navigate', url], { timeoutMs: 90_000 });
        return res.ms;
      } finally { await b.stop(); }
    }),
    [AB]: () => timed(cfg.nCold, 0, async () => {
      const a = new AgentBrowser({ ...ctx.abOpts, home: freshDir(join(ctx.benchDir, 'ca')) });
      try {
        const res = await a.cli(['open', url], { timeoutMs: 90_000 });
        expect(res.stdout.includes('Form'), 'agent-browser open should print the title', res.stdout);
        return res.ms;
      } finally { await a.stop(); }
    }),
    [PW]: () => timed(cfg.nCold, 0, async () => {
      const start = performance.now();
      const browser = await ctx.pw.chromium.launch(ctx.pw.launch);
      try {
        const page = await browser.newPage();
        await page.goto(url);
        return performance.now() - start;
      } finally { await browser.close(); }
    }),
  }));
  return [{
    id: 'cold-start', title: 'cold start: first page loaded', unit: 'ms', targets: { [PW]: 1.2 }, rounds: rs,
    ops: { bua: 'bua navigate URL (fresh BUA_HOME: daemon + managed browser)', [AB]: 'agent-browser open URL (fresh HOME)', [PW]: 'chromium.launch() + newPage() + goto()' },
  }];
}

/** The 50-step flow, warm (daemon and browser running) and cold (fresh). */
export async function flow50(ctx) {
  const { cfg, bua } = ctx;
  const steps = flowSteps(`${ctx.base}/sites/form.html`);
  const file = join(ctx.benchDir, 'fifty.yaml');
  writeFileSync(file, buaFlowYAML(steps));
  const check = (res) => expect(/1 passed, 0 failed/.test(res.stdout), 'bua run should pass', res.stdout + res.stderr);
  ctx.log('flow50-warm');
  const warm = await rounds(ctx, (r) => interleave(r, {
    bua: () => timed(cfg.nFlow, 1, async () => { const res = await bua.cli(['run', file]); check(res); return res.ms; }),
    [PW]: () => timed(cfg.nFlow, 1, () => runPlaywright(ctx.pw.browser, steps)),
  }));
  ctx.log('flow50-cold');
  const cold = await rounds(ctx, (r) => interleave(r, {
    bua: () => timed(cfg.nCold, 0, async () => {
      const b = new Bua({ ...ctx.buaOpts, home: freshDir(join(ctx.benchDir, 'cb')) });
      try { const res = await b.cli(['run', file], { timeoutMs: 120_000 }); check(res); return res.ms; } finally { await b.stop(); }
    }),
    [PW]: () => timed(cfg.nCold, 0, async () => {
      const start = performance.now();
      const browser = await ctx.pw.chromium.launch(ctx.pw.launch);
      try { await runPlaywright(browser, steps); return performance.now() - start; } finally { await browser.close(); }
    }),
  }));
  const ops = { bua: 'bua run fifty.yaml (open_tab, 12 × type, type, click, evaluate, close_tab)', [PW]: 'the same 50 calls: newPage+goto, fill, fill, click, evaluate, close' };
  return [
    { id: 'flow50-warm', title: '50-step flow, warm', unit: 'ms', targets: { [PW]: 0.5 }, rounds: warm, ops },
    { id: 'flow50-cold', title: '50-step flow, cold (launch included)', unit: 'ms', targets: { [PW]: 0.5 }, rounds: cold, ops },
  ];
}

/** all lists the scenarios in run order, by name (PEERS_ONLY picks among them). */
export const all = { oneShot, inProcess, buttons, outputSize, memory, coldStart, flow50, mcp };
