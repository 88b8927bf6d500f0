import { test } from 'node:test';
import assert from 'node:assert/strict';
import { adapters, chars, text } from '../lib/mcp.mjs';
import { readPages, totals, clicks } from '../lib/mcpscenario.mjs';
import { comparisons, plotRows } from '../lib/report.mjs';

// Answers as each server gave them (bua mcp at a4b4f74, @playwright/mcp
// 0.0.83, chrome-devtools-mcp 1.11.0), cut to the lines the adapters read.
const answers = {
  bua: {
    read: 'extract (tab 7):\n<page-content nonce="9fd723abbdc4be8cce97cb68c64c7d94">\nat http://h/form.html "Form"\n\n# Sign up\n\n' +
      'e0 textbox "Name"\ne5 checkbox "I agree"\ne7 button "Submit"\ne8 button "Submit later"\n</page-content nonce="9fd723abbdc4be8cce97cb68c64c7d94">',
    evaluate: 'evaluate (tab 7): number\n<page-content nonce="9fd723abbdc4be8cce97cb68c64c7d94">\n1\n</page-content nonce="9fd723abbdc4be8cce97cb68c64c7d94">',
    ref: 'e7',
  },
  'playwright-mcp': {
    read: '### Page\n- Page URL: http://h/form.html\n- Page Title: Form\n### Snapshot\n```yaml\n- generic [active] [ref=e1]:\n' +
      '  - checkbox "I agree" [checked] [ref=f2e8]\n  - button "Submit later" [ref=e11]\n  - button "Submit" [ref=e10]\n```',
    evaluate: "### Result\n1\n### Ran Playwright code\n```js\nawait page.evaluate('() => 1');\n```",
    ref: 'e10',
  },
  'chrome-devtools-mcp': {
    read: '## Latest page snapshot\nuid=1_0 RootWebArea "Form" url="http://h/form.html"\n  uid=1_11 checkbox "I agree"\n' +
      '  uid=1_14 button "Submit later"\n  uid=1_13 button "Submit"\n',
    evaluate: 'Script ran on page and returned:\n```json\n1\n```',
    ref: '1_13',
  },
};

test('adapters read each server\'s answers: a ref by exact role and name, an evaluate value, the page read', () => {
  for (const [name, a] of Object.entries(answers)) {
    const ad = adapters[name];
    assert.equal(ad.ref(a.read, 'button', 'Submit'), a.ref, name);
    assert.throws(() => ad.ref(a.read, 'button', 'Cancel'), /no button "Cancel" in the answer/, name);
    assert.equal(ad.value(a.evaluate), 1, name);
    assert.equal(ad.shows(a.read, 'http://h/form.html'), true, name);
    assert.equal(ad.shows(a.read, 'http://h/other.html'), false, name);
  }
  assert.equal(adapters['playwright-mcp'].ref(answers['playwright-mcp'].read, 'checkbox', 'I agree'), 'f2e8');
  const fenced = (type, v) => `evaluate (tab 7): ${type}\n<page-content nonce="ab12">\n${v}\n</page-content nonce="ab12">`;
  assert.equal(adapters.bua.value(fenced('string', 'Chose result 3.')), 'Chose result 3.');
  assert.equal(adapters.bua.value(fenced('string', '{"a":1}')), '{"a":1}');
  assert.deepEqual(adapters.bua.value(fenced('object', '{"a":1}')), { a: 1 });
});

test('adapters give the tool and arguments an agent would', () => {
  assert.deepEqual(adapters.bua.evaluate({}, 'document.forms.length'), ['browser', { action: 'evaluate', expression: 'return document.forms.length' }]);
  assert.deepEqual(adapters['playwright-mcp'].click({}, 'e10', 'button "Submit"'), ['browser_click', { element: 'button "Submit"', target: 'e10' }]);
  assert.deepEqual(adapters['chrome-devtools-mcp'].read({ pageId: 3 }), ['take_snapshot', { pageId: 3 }]);
});

test('text joins a result\'s text items; chars counts code points', () => {
  assert.equal(text({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'x' }, { type: 'text', text: 'b' }] }), 'a\nb');
  assert.equal(chars('e1 “é” 😀'), 8);
});

test('readPages: every fifth corpus page from the first', () => {
  const corpus = Array.from({ length: 40 }, (_, i) => `h${String(i).padStart(2, '0')}`);
  assert.deepEqual(readPages(corpus, 8), ['h00', 'h05', 'h10', 'h15', 'h20', 'h25', 'h30', 'h35']);
  assert.deepEqual(readPages(corpus, 1), ['h00']);
});

test('clicks name their page, target and the check that proves the click landed', () => {
  for (const k of clicks) {
    assert.match(k.path, /^(corpus|sites)\//);
    assert.ok(k.role && k.name && k.check && k.want !== undefined, k.id);
  }
});

test('totals add the pages up per round and tool', () => {
  const page = (a, b) => ({ rounds: [{ bua: [a], peer: [b] }, { bua: [a + 1], peer: [b] }] });
  assert.deepEqual(totals([page(10, 40), page(5, 10)]), [{ bua: [15], peer: [50] }, { bua: [17], peer: [50] }]);
});

test('plotRows folds a group of pages into one row per peer', () => {
  const m = (id, group, bua, peer) => ({ id, title: id, unit: 'chars', group, groupTitle: group && `${group}, 2 pages`, targets: { peer: 0.5 }, ops: { bua: 'x', peer: 'y' }, rounds: [{ bua: [bua], peer: [peer] }] });
  const rows = plotRows(comparisons([m('a', 'read', 4, 10), m('b', 'read', 6, 10), m('total', undefined, 10, 20)]));
  assert.deepEqual(rows.map((r) => r.title), ['total', 'read, 2 pages']);
  const read = rows[1];
  assert.equal(read.ratio.median, 0.5);
  assert.equal(read.ratio.min, 0.4);
  assert.equal(read.ratio.max, 0.6);
  assert.equal(read.meetsTarget, false); // one page is over 0.5×
});
