// Runs `npm ci` (the machine's npm, packages from the npm registry only) when node_modules is
// missing or older than package-lock.json, so that repeated builds skip a minute of installing.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const fresh = existsSync(marker) && statSync(marker).mtimeMs >= statSync('package-lock.json').mtimeMs;
if (!fresh) {
  console.log('spyglass-ui: npm ci');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
  if (r.status !== 0) {
    console.error('spyglass-ui: npm ci failed; the UI needs Node.js 20+ and npm with access to the npm registry');
    process.exit(r.status ?? 1);
  }
}
