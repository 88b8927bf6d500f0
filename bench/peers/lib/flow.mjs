// The 50-step flow, written once and run two ways: as a bua flow file
// (`bua run`) and as the same Playwright calls. It opens form.html in a new
// tab, then 12 rounds of type, type, click, evaluate (48 steps), then
// closes the tab: 50 steps. bua's `type` inserts text into the focused
// field; Playwright's nearest call is `fill` (focus, select, insertText).

/** flowSteps lists the 50 steps against the form page at url. */
export function flowSteps(url) {
  const steps = [{ kind: 'open', url }];
  for (let i = 0; i < 12; i++) {
    steps.push(
      { kind: 'type', selector: '#name', text: `Ada ${i}` },
      { kind: 'type', selector: '#email', text: `ada${i}@example.com` },
      { kind: 'click', selector: '#terms' },
      { kind: 'evaluate', expression: "document.getElementById('name').value.length" },
    );
  }
  steps.push({ kind: 'close' });
  return steps;
}

/** buaFlowYAML writes steps as a bua flow file. */
export function buaFlowYAML(steps) {
  const lines = ['name: fifty steps', 'steps:'];
  for (const s of steps) {
    switch (s.kind) {
      case 'open': lines.push(`  - open_tab: ${JSON.stringify(s.url)}`, '    as: tab'); break;
      case 'type': lines.push(`  - type: { selector: ${JSON.stringify(s.selector)}, text: ${JSON.stringify(s.text)} }`); break;
      case 'click': lines.push(`  - click: ${JSON.stringify(s.selector)}`); break;
      case 'evaluate': lines.push(`  - evaluate: ${JSON.stringify('return ' + s.expression)}`); break;
      case 'close': lines.push('  - close_tab: { tabId: "${{ tab.tabId }}" }'); break;
      default: throw new Error(`unknown step ${s.kind}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** runPlaywright runs steps in a new page of context (a Browser or BrowserContext). */
export async function runPlaywright(context, steps) {
  let page;
  for (const s of steps) {
    switch (s.kind) {
      case 'open': page = await context.newPage(); await page.goto(s.url); break;
      case 'type': await page.fill(s.selector, s.text); break;
      case 'click': await page.click(s.selector); break;
      case 'evaluate': await page.evaluate(s.expression); break;
      case 'close': await page.close(); break;
      default: throw new Error(`unknown step ${s.kind}`);
    }
  }
}
