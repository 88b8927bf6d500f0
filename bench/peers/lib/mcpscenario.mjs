// The MCP scenario: `bua mcp` against Playwright MCP and
// chrome-devtools-mcp, each driven by the same TypeScript SDK client over
// stdio (lib/mcp.mjs), interleaved round by round like every scenario:
//
//   mcp-tools-list   characters of tools/list's result (its JSON)
//   mcp-evaluate     ms of one evaluate, the client's call to its result, warm
//   mcp-read-*       characters of reading a real-world page: bua's extract
//                    against browser_snapshot and take_snapshot, on each of
//                    readPages' corpus pages, and the pages together
//   mcp-click*       characters of one click's answer (clicks, below)
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, SETTLE0, chars, loadSDK, servers } from './mcp.mjs';
import { interleave, timed, expect, rounds } from './measure.mjs';

const PWM = 'playwright-mcp';
const CDM = 'chrome-devtools-mcp';

/**
 * readPages picks n corpus pages deterministically: every fifth of the
 * corpus in the order of its file names (the pages' SHA-256), from the
 * first, so the pick spans the corpus rather than one end of it.
 */
export function readPages(corpus, n) {
  return corpus.filter((_, i) => i % 5 === 0).slice(0, n);
}

/**
 * clicks are the clicks whose answers are measured, each on a page where
 * it changes something small: a real-world page's checkbox (pv-magazine's
 * comment form: "Save my name…" works with the page's scripts refused, and
 * a click changes its checked state and nothing else), and the page of
 * 1,000 buttons and links that bua's own MCP tests use, where choosing a
 * result changes a status line and adds a panel of two buttons. check is
 * an expression that gives want once the click landed.
 */
export const clicks = [
  {
    id: 'mcp-click', title: 'MCP click answer, a checkbox on a real-world page',
    path: 'corpus/b0cf2bbf0192315eec95ede9c59bbf4ae58699275739d590edc24b012e3e8800.html',
    role: 'checkbox', name: 'Save my name, email, and website in this browser for the next time I comment.',
    check: "document.getElementById('wp-comment-cookies-consent').checked", want: true,
  },
  {
    id: 'mcp-click-1000', title: 'MCP click answer, 1,000-element page, two buttons appear',
    path: 'sites/mcp/thousand.html', role: 'button', name: 'Choose result 3',
    check: "document.getElementById('status').textContent", want: 'Chose result 3.',
  },
];

/**
 * totals adds the pages' samples up per round and tool: the pages read
 * together. measures are per-page, with one sample per round and tool.
 */
export function totals(measures) {
  return measures[0].rounds.map((_, r) => Object.fromEntries(Object.keys(measures[0].rounds[r]).map((tool) =>
    [tool, [measures.reduce((sum, m) => sum + m.rounds[r][tool][0], 0)]])));
}

/** mcp runs the scenario; see the top of this file. */
export async function mcp(ctx) {
  const { cfg } = ctx;
  const sdk = loadSDK(ctx.benchDir);
  const defs = servers({ benchDir: ctx.benchDir, chrome: ctx.chrome, bua: ctx.bua, settle0: !cfg.smoke });
  // The last round's answers, kept for a person to read and compare.
  const answers = join(ctx.benchDir, 'mcp-answers');
  mkdirSync(answers, { recursive: true });
  const keep = (file, t) => writeFileSync(join(answers, file), t);
  const agents = {};
  const stop = () => Promise.all(Object.values(agents).map((a) => a.stop()));
  ctx.cleanups.push(stop);
  try {
    for (const [name, def] of Object.entries(defs)) {
      ctx.log(`mcp: starting ${name}`);
      agents[name] = await Agent.start(sdk, name, def);
    }
    const main = { bua: agents.bua, [PWM]: agents[PWM], [CDM]: agents[CDM] };
    const each = (group, fn) => Object.fromEntries(Object.entries(group).map(([name, a]) => [name, () => fn(a, name)]));
    const measures = [];

    ctx.log('mcp-tools-list');
    const listed = {};
    for (const [name, a] of Object.entries(main)) {
      const n = (await a.c.client.listTools()).tools.length;
      listed[name] = `tools/list: ${n} tool${n === 1 ? '' : 's'}`;
    }
    measures.push({
      id: 'mcp-tools-list', title: 'MCP tools/list', unit: 'chars', targets: { [PWM]: 0.5 }, ops: listed,
      rounds: await rounds(ctx, (r) => interleave(r, each(main, async (a) => [await a.c.toolsListChars()]))),
    });

    // Evaluate: warm (the page loaded, warm-ups first), timed by the client.
    const form = `${ctx.base}/sites/form.html`;
    for (const a of Object.values(agents)) await a.navigate(form);
    const expr = 'document.forms.length';
    ctx.log('mcp-evaluate');
    measures.push({
      id: 'mcp-evaluate', title: 'MCP evaluate round trip', unit: 'ms', targets: { [PWM]: 1.0 },
      ops: {
        bua: `browser {action: evaluate, expression: "return ${expr}"}`, [PWM]: `browser_evaluate {function: "() => ${expr}"}`,
        [CDM]: `evaluate_script {function: "() => ${expr}"}`, ...(agents[SETTLE0] ? { [SETTLE0]: 'browser_evaluate, its settle wait off' } : {}),
      },
      rounds: await rounds(ctx, (r) => interleave(r, each(agents, (a) => timed(cfg.n, cfg.warmup, async () => {
        const res = await a.evaluate(expr);
        expect(a.a.value(res.text) === 1, `${a.name} evaluate should give 1`, res.text);
        return res.ms;
      })))),
    });
    if (agents[SETTLE0]) { await agents[SETTLE0].stop(); delete agents[SETTLE0]; }

    // Reading real pages: each tool's answer as the model reads it.
    const pages = readPages(ctx.corpus, cfg.mcpPages);
    const nPages = `${pages.length} page${pages.length === 1 ? '' : 's'}`;
    const perPage = [];
    for (const hash of pages) {
      const url = `${ctx.base}/corpus/${hash}.html`;
      const name = `corpus ${hash.slice(0, 8)}`;
      ctx.log(`mcp-read ${name}`);
      const navigateChars = { bua: [], [PWM]: [], [CDM]: [] };
      const buaAllChars = [];
      perPage.push({
        id: `mcp-read-${hash.slice(0, 8)}`, title: `MCP read, ${name}`, unit: 'chars', group: 'mcp-read', groupTitle: `MCP read, ${nPages}`,
        targets: { [PWM]: 0.5 }, page: url,
        ops: { bua: 'browser {action: extract}', [PWM]: 'browser_snapshot', [CDM]: 'take_snapshot' },
        navigateChars, buaAllChars,
        rounds: await rounds(ctx, (r) => interleave(r, each(main, async (a, tool) => {
          navigateChars[tool].push(chars((await a.navigate(url)).text));
          const res = await a.read();
          keep(`read-${hash.slice(0, 8)}.${tool}.txt`, res.text);
          expect(a.a.shows(res.text, url), `${tool}'s read should be of ${url}`, res.text);
          if (tool === 'bua') buaAllChars.push(chars((await a.do('readAll')).text));
          return [chars(res.text)];
        }))),
      });
    }
    measures.push(...perPage, {
      id: 'mcp-read-total', title: `MCP read, ${nPages} together`, unit: 'chars', targets: { [PWM]: 0.5 },
      ops: perPage[0].ops, pages: pages.map((h) => `corpus/${h}.html`), rounds: totals(perPage),
    });

    // One click's answer: the page read first (for the ref), then the click.
    for (const k of clicks) {
      const url = `${ctx.base}/${k.path}`;
      ctx.log(k.id);
      measures.push({
        id: k.id, title: k.title, unit: 'chars', targets: {}, page: url,
        ops: { bua: 'browser {action: click, uid}', [PWM]: 'browser_click {element, target: ref}', [CDM]: 'click {uid}' },
        rounds: await rounds(ctx, (r) => interleave(r, each(main, async (a, tool) => {
          await a.navigate(url);
          const ref = a.a.ref((await a.read()).text, k.role, k.name);
          const res = await a.click(ref, `${k.role} "${k.name}"`);
          keep(`${k.id}.${tool}.txt`, res.text);
          const after = await a.evaluate(k.check);
          expect(a.a.value(after.text) === k.want, `${tool}'s click should make ${k.check} ${JSON.stringify(k.want)}`, after.text);
          return [chars(res.text)];
        }))),
      });
    }
    return measures;
  } finally {
    await stop();
    ctx.cleanups.splice(ctx.cleanups.indexOf(stop), 1);
  }
}
