// The report: results.json (every sample, each round's medians, the ratio
// bua/peer with its spread), a Markdown table of the ratios, and a PNG
// plot of the ratios drawn by Chart.js in headless Chromium.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compare, meets, median } from './stats.mjs';

/** comparisons turns measures into one row per (measure, peer). */
export function comparisons(measures) {
  const rows = [];
  for (const m of measures) {
    for (const peer of Object.keys(m.ops).filter((k) => k !== 'bua')) {
      const c = compare(m.rounds.map((r) => ({ bua: r.bua, peer: r[peer] })));
      const target = m.targets?.[peer] ?? null;
      rows.push({
        id: `${m.id}/${peer}`, scenario: m.id, title: m.title, group: m.group ?? m.id, groupTitle: m.groupTitle, unit: m.unit, peer,
        ops: { bua: m.ops.bua, peer: m.ops[peer] }, target, meetsTarget: meets(c.ratio.median, target), ...c,
      });
    }
  }
  return rows;
}

/**
 * plotRows folds the rows of a group of pages (the output sizes, the MCP
 * reads: measures with a group) into one row per group and peer (median
 * over pages, spread = the pages' min and max ratios; the target holds
 * only when every page meets it), so the plot stays readable.
 */
export function plotRows(rows) {
  const folded = (r) => r.group !== r.scenario;
  const out = rows.filter((r) => !folded(r));
  const keys = [...new Set(rows.filter(folded).map((r) => `${r.group}\n${r.peer}`))];
  for (const key of keys) {
    const [group, peer] = key.split('\n');
    const pages = rows.filter((r) => folded(r) && r.group === group && r.peer === peer);
    const target = pages[0].target;
    out.push({
      id: `${group}/${peer}`, title: pages[0].groupTitle ?? `${group}, ${pages.length} pages`, peer, unit: pages[0].unit, target,
      meetsTarget: target == null ? null : pages.every((p) => p.ratio.max <= target),
      ratio: { median: median(pages.map((p) => p.ratio.median)), min: Math.min(...pages.map((p) => p.ratio.min)), max: Math.max(...pages.map((p) => p.ratio.max)) },
    });
  }
  return out;
}

const f2 = (x) => x.toFixed(2);
const fmtAbs = (x, unit) => (unit === 'ms' ? `${x < 10 ? x.toFixed(1) : Math.round(x)} ms` : unit === 'KiB' ? `${(x / 1024).toFixed(0)} MiB` : `${Math.round(x)}`);

/** table is the Markdown table of rows: ratio, spread, target, and the medians behind them. */
export function table(rows) {
  const lines = [
    '| scenario | vs | bua | peer | bua/peer (median of rounds) | spread (min–max) | target |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const mark = r.meetsTarget == null ? '—' : `≤ ${r.target}× ${r.meetsTarget ? '✅' : '❌'}`;
    lines.push(`| ${r.title} | ${r.peer} | ${fmtAbs(r.buaMedian, r.unit)} | ${fmtAbs(r.peerMedian, r.unit)} | **${f2(r.ratio.median)}×** | ${f2(r.ratio.min)}–${f2(r.ratio.max)} | ${mark} |`);
  }
  return lines.join('\n') + '\n';
}

/** plot draws rows as a horizontal bar chart of ratios (log axis) into png. */
export async function plot(rows, { chromium, launch, benchDir, png, title }) {
  const chartJs = readFileSync(join(benchDir, 'node_modules/chart.js/dist/chart.umd.min.js'), 'utf8');
  const labels = rows.map((r) => `${r.title} vs ${r.peer}`);
  const colour = (r) => (r.meetsTarget == null ? '#7f8c8d' : r.meetsTarget ? '#27ae60' : '#c0392b');
  // Bars grow from 1× (the peer) towards the ratio: left is faster or
  // smaller, right slower or bigger. Floating bars draw the spread and the
  // target as well, since a log axis has no zero for a bar to start at.
  const data = {
    labels,
    datasets: [
      { label: "bua/peer, median of rounds", data: rows.map((r) => [1, r.ratio.median]), backgroundColor: rows.map(colour), barPercentage: 0.9, categoryPercentage: 0.8, grouped: false, order: 3 },
      { label: "spread across rounds (min–max)", data: rows.map((r) => [r.ratio.min, r.ratio.max]), backgroundColor: "rgba(0,0,0,0.45)", barPercentage: 0.2, categoryPercentage: 0.8, grouped: false, order: 2 },
      { label: "target", data: rows.map((r) => (r.target == null ? null : [r.target / 1.015, r.target * 1.015])), backgroundColor: "#2c3e50", barPercentage: 0.8, categoryPercentage: 1, grouped: false, order: 1 },
    ],
  };
  const height = 120 + rows.length * 26;
  const html = `<!doctype html><html><body style="margin:0;background:#fff">
<div style="width:1100px;height:${height}px"><canvas id="c"></canvas></div>
<script>${chartJs}</script>
<script>
new Chart(document.getElementById('c'), {
  type: 'bar',
  data: ${JSON.stringify(data)},
  options: {
    indexAxis: 'y', animation: false, responsive: true, maintainAspectRatio: false,
    scales: {
      x: { type: 'logarithmic', min: 0.01, max: 20, title: { display: true, text: 'bua / peer (log scale; < 1 means bua is faster or smaller)' },
           ticks: { maxRotation: 0, autoSkip: false, callback: (v) => [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 20].includes(v) ? v + '×' : '' } },
      y: { type: 'category', labels: ${JSON.stringify(labels)} },
    },
    plugins: { title: { display: true, text: ${JSON.stringify(title)} }, legend: { position: 'bottom' } },
  },
});
document.body.dataset.done = '1';
</script></body></html>`;
  const browser = await chromium.launch(launch);
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height }, deviceScaleFactor: 1 });
    await page.setContent(html);
    await page.waitForSelector('body[data-done="1"]');
    await page.locator('canvas').screenshot({ path: png });
  } finally { await browser.close(); }
}

/** write saves results.json and returns its rows. */
export function write(file, meta, measures) {
  const rows = comparisons(measures);
  writeFileSync(file, JSON.stringify({ meta, comparisons: rows, measures }, null, 1) + '\n');
  return rows;
}
