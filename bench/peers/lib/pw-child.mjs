// A Playwright script in a process of its own, for the memory scenario:
// the node process that drives the browser is measured alone, not the
// harness around it. argv: benchDir chrome url. It launches, opens url,
// takes the ARIA snapshot and prints "ready"; each
// line on stdin repeats the goto and snapshot; end of stdin closes it.
import { createInterface } from 'node:readline';
import { loadPlaywright, launchOptions } from './tools.mjs';

const [benchDir, chrome, url] = process.argv.slice(2);
const { chromium } = loadPlaywright(benchDir);
const browser = await chromium.launch(launchOptions(chrome));
const page = await browser.newPage();
const work = async () => { await page.goto(url); await page.locator('body').ariaSnapshot(); };
await work();
console.log("ready");
for await (const _ of createInterface({ input: process.stdin })) {
  await work();
  console.log("ready");
}
await browser.close();
