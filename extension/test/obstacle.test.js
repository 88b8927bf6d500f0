// node --test: the JS obstacle classifier against the vectors the Go suite
// runs (testdata/obstacle/*.json), plus the captcha iframe helper.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';

import { detectObstacle, explainObstacle, cut, countUpTo, lower, SCAN_CHARS } from '../src/read/obstacle.js';
import { CAPTCHA_FRAME_PATTERNS, isCaptchaFrameSrc } from '../src/read/page-signals.js';

const here = dirname(fileURLToPath(import.meta.url));
const vectorDir = join(here, '..', '..', 'testdata', 'obstacle');
const files = readdirSync(vectorDir).filter((f) => f.endsWith('.json')).sort();

test('there are at least 80 vectors', () => {
  assert.ok(files.length >= 80, `found ${files.length} in ${vectorDir}`);
});

for (const file of files) {
  const v = JSON.parse(readFileSync(join(vectorDir, file), 'utf8'));
  test(file.replace(/\.json$/, ''), () => {
    const got = explainObstacle(v.input);
    assert.deepStrictEqual(got.obstacle, v.want, `signals: ${got.signals.join(', ')}`);
    assert.equal(got.layer, v.layer, `signals: ${got.signals.join(', ')}`);
    assert.deepStrictEqual(detectObstacle(v.input), got.obstacle);
  });
}

test('cut counts code points, not UTF-16 units', () => {
  assert.equal(cut('a'.repeat(5000), SCAN_CHARS).length, SCAN_CHARS);
  const emoji = '😀'.repeat(5000);
  assert.equal([...cut(emoji, SCAN_CHARS)].length, SCAN_CHARS);
  assert.equal(cut('short', SCAN_CHARS), 'short');
  assert.equal(countUpTo('😀'.repeat(10), 400), 10);
  assert.equal(countUpTo('a'.repeat(5000), 2000), 2000);
});

test('a marker after the scanned prefix cannot fire', () => {
  const marker = '\nchecking your browser before accessing example.com\n';
  const before = { markdown: 'x'.repeat(SCAN_CHARS - marker.length) + marker + 'y'.repeat(100) };
  const after = { markdown: 'x'.repeat(SCAN_CHARS) + marker };
  assert.equal(detectObstacle(before)?.type, 'captcha');
  assert.equal(detectObstacle(after), null);
});

test('lowercasing is ASCII only, NBSP becomes a space', () => {
  assert.equal(lower('Sign\u00a0IN – ÉTÉ İ'), 'sign in – ÉtÉ İ');
  const v = explainObstacle({ url: 'HTTPS://EXAMPLE.COM/LOGIN', elements: [{ uid: '1', role: 'TEXTBOX', name: 'PASSWORD' }] });
  assert.equal(v.layer, 'L3');
});

test('missing or malformed fields do not throw', () => {
  assert.equal(detectObstacle({}), null);
  assert.equal(detectObstacle({ url: 5, elements: 'x', markdown: null }), null);
  assert.equal(detectObstacle({ elements: [null, { role: 'textbox' }] }), null);
});

test('CAPTCHA_FRAME_PATTERNS are regex sources', () => {
  assert.ok(CAPTCHA_FRAME_PATTERNS.length >= 5);
  for (const src of CAPTCHA_FRAME_PATTERNS) {
    assert.equal(typeof src, 'string');
    assert.doesNotThrow(() => new RegExp(src));
  }
});

test('isCaptchaFrameSrc', () => {
  const yes = [
    'https://challenges.cloudflare.com/cdn-cgi/challenge-platform/h/b/turnstile/if/ov2/av0/rcv0/0/abc',
    'https://www.example.com/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1',
    'https://newassets.hcaptcha.com/captcha/v1/abc/static/hcaptcha.html#frame=checkbox&id=0',
    'https://www.google.com/recaptcha/api2/anchor?ar=1&k=6Le&size=normal',
    'https://www.recaptcha.net/recaptcha/api2/anchor?k=6Le',
    'HTTPS://WWW.GOOGLE.COM/RECAPTCHA/ENTERPRISE/ANCHOR?K=X',
    'https://geo.captcha-delivery.com/captcha/?initialCid=x',
    'https://client-api.arkoselabs.com/fc/gc/?token=x',
  ];
  const no = [
    '',
    undefined,
    'about:blank',
    'https://www.youtube.com/embed/abc',
    'https://www.google.com/maps/embed?pb=x',
    'https://example.com/recaptcha-explained',
    'https://evil.example/?u=https://challenges.cloudflare.com/',
    'https://challenges.cloudflare.com.evil.example/x',
    // Invisible widgets ask nothing of a human until they escalate.
    'https://www.google.com/recaptcha/api2/anchor?ar=1&k=6Le&size=invisible&cb=x',
    'https://newassets.hcaptcha.com/captcha/v1/abc/static/hcaptcha.html#frame=checkbox-invisible',
  ];
  for (const src of yes) assert.equal(isCaptchaFrameSrc(src), true, src);
  for (const src of no) assert.equal(isCaptchaFrameSrc(src), false, String(src));
});
