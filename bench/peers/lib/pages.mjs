// The pages every tool reads, served on one loopback port so that bua,
// agent-browser and Playwright load the very same bytes:
//
//   /sites/<path>          testdata/sites (fixtures, Playwright's test pages)
//   /corpus/<hash>.html    testdata/corpus/articles/<hash>.html.gz, unzipped,
//                          with scripts and remote assets refused by CSP, as
//                          e2e/corpus_test.go serves them (the machine has no
//                          network: Chromium would wait on every remote host)
//   /gen/buttons.html?n=N  a generated page of N buttons (1..20000)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { gunzipSync } from 'node:zlib';
import { join, normalize, extname } from 'node:path';

const types = {
  '.html': 'text/html', '.htm': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.png': 'image/png', '.svg': 'image/svg+xml', '.json': 'application/json',
};

/** buttonsPage is the generated page: N labelled buttons in a list. */
export function buttonsPage(n) {
  const items = [];
  for (let i = 1; i <= n; i++) items.push(`<li><button id="b${i}">Button ${i}</button></li>`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${n} buttons</title></head>` +
    `<body><h1>${n} buttons</h1><ul>${items.join('')}</ul></body></html>`;
}

/**
 * serve starts the server on 127.0.0.1 and a free port; root is the
 * repository's root. Resolves to { base, close }.
 */
export async function serve(root) {
  const sites = join(root, 'testdata/sites');
  const corpus = join(root, 'testdata/corpus/articles');
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    try {
      if (url.pathname === '/gen/buttons.html') {
        const n = Number(url.searchParams.get('n'));
        if (!Number.isInteger(n) || n < 1 || n > 20000) throw Object.assign(new Error('n must be 1..20000'), { status: 400 });
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
        return res.end(buttonsPage(n));
      }
      const m = /^\/corpus\/([0-9a-f]{64})\.html$/.exec(url.pathname);
      if (m) {
        const html = gunzipSync(await readFile(join(corpus, `${m[1]}.html.gz`)));
        res.writeHead(200, {
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Security-Policy': "default-src 'self' 'unsafe-inline' data:; script-src 'none'",
        });
        return res.end(html);
      }
      if (url.pathname.startsWith('/sites/')) {
        const rel = normalize(decodeURIComponent(url.pathname.slice('/sites/'.length)));
        if (rel.startsWith('..')) throw Object.assign(new Error('outside sites'), { status: 403 });
        const body = await readFile(join(sites, rel));
        res.writeHead(200, { 'Content-Type': types[extname(rel)] || 'application/octet-stream' });
        return res.end(body);
      }
      throw Object.assign(new Error('not found'), { status: 404 });
    } catch (e) {
      res.writeHead(e.status || (e.code === 'ENOENT' ? 404 : 500), { 'Content-Type': 'text/plain' });
      res.end(String(e.message));
    }
  });
  await new Promise((ok, fail) => server.listen(0, '127.0.0.1', ok).once('error', fail));
  const base = `http://127.0.0.1:${server.address().port}`;
  return { base, close: () => new Promise((ok) => server.close(ok)) };
}
