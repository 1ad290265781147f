// What the browser tests stand on: a real `spyglass serve` (the shaded jar, started here on a free
// loopback port over the generator) and Debian's Chromium driven by playwright-core.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, '../..');

export const CHROMIUM = process.env.SPYGLASS_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
];

/** Where screenshots go: docs/img/ui when SPYGLASS_UI_SCREENSHOTS=docs, else target/screenshots. */
export const SHOTS = process.env.SPYGLASS_UI_SCREENSHOTS === 'docs' ? join(repo, 'docs/img/ui') : join(here, '../target/screenshots');
mkdirSync(SHOTS, { recursive: true });

export function requireChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The browser tests need Debian's Chromium at ${CHROMIUM}. Install it as root with: ` +
        'apt-get update && apt-get install -y --no-install-recommends chromium ' +
        '(./test does this itself when it runs as root), or set SPYGLASS_CHROMIUM to a Chromium binary.',
    );
  }
}

/** Starts `spyglass serve` from the shaded jar; resolves when it prints its URL. */
export async function startServer({ source = 'gen?rate=5000', extra = [], token = null } = {}) {
  const jar = process.env.SPYGLASS_JAR ?? join(repo, 'spyglass-cli/target/spyglass.jar');
  if (!existsSync(jar)) throw new Error(`No ${jar}: build it first (mvn -B package -DskipTests -pl spyglass-cli -am)`);
  const data = mkdtempSync(join(tmpdir(), 'spyglass-ui-e2e-'));
  const proc = spawn(
    'java',
    ['-Xmx512m', '-jar', jar, 'serve', '--source', source, '--port', '0', '--data', data, ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const url = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error('spyglass serve did not print its URL in 120 s:\n' + log)), 120_000);
    const onData = (b) => {
      log += b;
      const m = /Spyglass is serving (http:\/\/\S+?)\/?\s/.exec(log);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', (b) => (log += b));
    proc.on('exit', (code) => fail(new Error(`spyglass serve exited with ${code}:\n${log}`)));
  });
  return {
    url,
    log: () => log,
    /** Calls the API as the holder of {@code as} (the server's default token unless given). */
    async api(method, path, body, as = token) {
      const headers = { Accept: 'application/json' };
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      if (as) headers.Authorization = 'Bearer ' + as;
      const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
    },
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((ok) => {
        const t = setTimeout(() => (proc.kill('SIGKILL'), ok()), 15_000);
        proc.on('exit', () => (clearTimeout(t), ok()));
        if (proc.exitCode != null) ok();
      });
      rmSync(data, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  requireChromium();
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}

/**
 * A page of a new browser context (its own storage: another browser, as far as the UI knows),
 * holding {@code token} as if it had been entered before.
 */
export async function newPage(browser, { width = 1280, height = 800, colorScheme = 'light', token = null } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme, acceptDownloads: true });
  // a token kept from an earlier visit, as the UI keeps it
  if (token) await context.addInitScript((t) => localStorage.setItem('spyglass.token', t), token);
  context.setDefaultTimeout(20_000);
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && problems.push('console: ' + m.text()));
  page.problems = problems;
  return page;
}

export async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, name + '.png') });
}

/** The #/query URL of a query, like the UI writes it. */
export function queryUrl(base, q, params = {}) {
  const p = new URLSearchParams({ q, ...params });
  return `${base}/#/query?${p.toString().replace(/\+/g, '%20')}`;
}
