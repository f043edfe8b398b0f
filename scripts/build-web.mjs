// Bundles the web UI (web/, Preact) into dist/web: hashed assets under dist/web/assets (served at
// /ui/assets/ with long caching, each also written gzip- and brotli-compressed so the server sends
// them as they are), and dist/web/index.html naming them. Fails when the JavaScript, gzipped, is over
// the budget: the page must stay quick to load on a slow link.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

export const WEB_JS_BUDGET_BYTES = 150 * 1024;
const OUT = 'dist/web';

export async function buildWeb() {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(`${OUT}/assets`, { recursive: true });
  const result = await build({
    entryPoints: { app: 'web/main.tsx' },
    outdir: `${OUT}/assets`,
    entryNames: '[name]-[hash]',
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome115', 'firefox115', 'safari16'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs);
  const js = outputs.filter((f) => f.endsWith('.js'));
  const css = outputs.filter((f) => f.endsWith('.css'));
  let jsGzip = 0;
  for (const file of outputs) {
    const bytes = readFileSync(file);
    const gz = gzipSync(bytes, { level: 9 });
    writeFileSync(`${file}.gz`, gz);
    writeFileSync(`${file}.br`, brotliCompressSync(bytes));
    if (file.endsWith('.js')) jsGzip += gz.length;
  }
  const asset = (f) => `/ui/assets/${basename(f)}`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentd</title>
${css.map((f) => `<link rel="stylesheet" href="${asset(f)}">`).join('\n')}
${js.map((f) => `<script type="module" src="${asset(f)}"></script>`).join('\n')}
</head>
<body><div id="app"><noscript>The agentd web UI needs JavaScript.</noscript></div></body>
</html>
`;
  writeFileSync(`${OUT}/index.html`, html);
  writeFileSync(
    `${OUT}/build-info.json`,
    `${JSON.stringify({ js_gzip_bytes: jsGzip, budget_bytes: WEB_JS_BUDGET_BYTES, assets: outputs.map((f) => basename(f)) })}\n`,
  );
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  if (jsGzip > WEB_JS_BUDGET_BYTES) {
    throw new Error(
      `web UI: JavaScript is ${kb(jsGzip)} gzipped, over the ${kb(WEB_JS_BUDGET_BYTES)} budget`,
    );
  }
  process.stdout.write(`web UI: ${kb(jsGzip)} of JavaScript gzipped (budget ${kb(WEB_JS_BUDGET_BYTES)})\n`);
}
