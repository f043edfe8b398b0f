// Bundles src/cli/main.ts into dist/cli.js. Type checking is separate (`npm run check`);
// this stays fast so `npm start` can rebuild every time.
import { build } from 'esbuild';

await build({
  entryPoints: { cli: 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
