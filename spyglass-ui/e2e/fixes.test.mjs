// Browser tests of what the second trial and the security review found in the web UI, in Debian's
// headless Chromium against a real `spyglass serve` (the generator and ingestion, with tokens).
// Every page's console is watched: an error there (a refused Content-Security-Policy among them)
// fails the test.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, newPage as openPage, queryUrl, shot, startServer } from './harness.mjs';

/** A screenshot for looking at (target/screenshots), not for the docs. */
const look = (page, name) => page.screenshot({ path: new URL(`../target/screenshots/${name}.png`, import.meta.url).pathname, fullPage: true });

let server;
let browser;
const TOKENS = 'ann-secret-0123456 ann ingest\nbob-secret-0123456 bob\n';
const T = { timeout: 180_000 };
let newPage;

before(async () => {
  const tokens = join(mkdtempSync(join(tmpdir(), 'spyglass-ui-tokens-')), 'tokens');
  writeFileSync(tokens, TOKENS);
  const extra = ['--source', 'http', '--tokens', tokens, '--max-queries-per-user', '30', '--max-queries', '60'];
  [server, browser] = await Promise.all([startServer({ source: 'gen?rate=2000', extra, token: 'ann-secret-0123456' }), launchBrowser()]);
  newPage = (options = {}) => openPage(browser, { token: 'ann-secret-0123456', ...options });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

function runId(page) {
  return new URLSearchParams(page.url().split('?')[1]).get('run');
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], 'the page logged errors');
}

async function expectEventually(check, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail('condition not met in time: ' + check.toString());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Watches a page's console like the harness does (for pages opened without it). */
function watch(page) {
  const problems = [];
  page.on('pageerror', (e) => problems.push('page error: ' + e.message));
  page.on('console', (m) => m.type() === 'error' && !/Failed to load resource/.test(m.text()) && problems.push('console: ' + m.text()));
  page.problems = problems;
  return page;
}

describe('the web UI, after the second trial', () => {
  it('T2-02: eight tabs follow live queries; Stop in the last ends its query at once, and one more tab loads', T, async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 700 } });
    await context.addInitScript((t) => localStorage.setItem('spyglass.token', t), 'ann-secret-0123456'); // remembered
    context.setDefaultTimeout(20_000);
    const urls = [];
    const sockets = [];
    context.on('request', (r) => urls.push(`${r.method()} ${r.url()}`));
    const q = 'SELECT COUNT(*) AS n FROM STREAM(60s, TIME) WINDOWING TUMBLING(1s, TIME)';
    const tabs = [];
    for (let i = 0; i < 8; i++) {
      const page = watch(await context.newPage());
      page.on('websocket', (ws) => sockets.push(ws.url()));
      await page.goto(queryUrl(server.url, q));
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByText(/s left · [\d,]+ records seen/).waitFor();
      tabs.push(page);
    }
    // every tab is still live: its progress and its results keep coming
    for (const page of tabs) await page.locator('select[aria-label="Window"] option').nth(2).waitFor({ state: 'attached' });
    const last = tabs[tabs.length - 1];
    const id = runId(last);
    await last.getByRole('button', { name: 'Stop' }).click();
    await expectEventually(async () => (await server.api('GET', `/api/queries/${id}`)).body.state !== 'running', 5_000);
    await last.getByText(/^finished/).waitFor({ timeout: 5_000 });
    // a ninth tab loads, and its page can call the API
    const ninth = watch(await context.newPage());
    await ninth.goto(server.url + '/#/running', { timeout: 10_000 });
    await ninth.locator(`tr[data-query-id="${tabs[0].url() && runId(tabs[0])}"]`).waitFor({ timeout: 10_000 });
    // one socket per tab, each opened with a ticket; no token and no EventSource in any URL
    assert.equal(sockets.length, tabs.length);
    for (const u of sockets) assert.match(u, /\/api\/ws\?ticket=[\w-]{32,}$/);
    assert.deepEqual(urls.filter((u) => /access_token|secret|\/results/.test(u)), []);
    // no poll of a query's progress: it comes over the socket
    assert.deepEqual(urls.filter((u) => /^GET .*\/api\/queries\/\w+$/.test(u)), []);
    for (const page of [...tabs, ninth]) noProblems(page);
    const ids = tabs.map(runId);
    await context.close();
    for (const id of ids) await server.api('DELETE', `/api/queries/${id}`);
  });

  it('T2-02: a dropped socket comes back with a new ticket and resumes after the last result, none twice', T, async () => {
    const page = await newPage();
    const sockets = [];
    page.on('websocket', (ws) => sockets.push(ws.url()));
    await page.goto(queryUrl(server.url, 'SELECT COUNT(*) AS n FROM STREAM(20s, TIME) WINDOWING TUMBLING(1s, TIME)'));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('select[aria-label="Window"] option').nth(3).waitFor({ state: 'attached' });
    await page.evaluate(() => globalThis.__spyglassLive.ws.close()); // as a lost connection would
    await expectEventually(async () => sockets.length === 2);
    await page.getByText(/^finished/).waitFor({ timeout: 40_000 });
    assert.notEqual(sockets[0], sockets[1], 'a new ticket for the new connection');
    const windows = (await page.locator('select[aria-label="Window"] option').allTextContents()).slice(1).map((o) => Number(o.split(' ')[0]));
    const n = windows.length;
    assert.ok(n >= 15, `${n} windows`);
    assert.deepEqual(windows, Array.from({ length: n }, (_, i) => n - i), 'every window once, in order');
    noProblems(page);
    await page.context().close();
  });

  it('T2-06: a query that runs until stopped says how long it has run, with no fraction', T, async () => {
    const page = await newPage();
    await page.goto(queryUrl(server.url, 'SELECT COUNT(*) AS n FROM STREAM(FOREVER) WINDOWING TUMBLING(1s, TIME)'));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^running for \d+ s · until stopped · [\d,]+ records seen · \d+ results?$/).waitFor();
    assert.equal(await page.locator('.progress [role="progressbar"]').count(), 0, 'no bar to fill');
    await shot(page, 'forever');
    await page.emulateMedia({ colorScheme: 'dark' });
    await look(page, 'forever-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await look(page, 'forever-390');
    await page.goto(server.url + '/#/running');
    await page.getByText(/\d+ s · until stopped/).first().waitFor();
    await page.goBack();
    await page.getByRole('button', { name: 'Stop' }).click();
    await page.getByText(/^finished/).waitFor();
    noProblems(page);
    await page.context().close();
  });

  it('T2-16, SEC-12: a refused token is said so; the token is kept for the session unless remembered', T, async () => {
    const page = await openPage(browser);
    await page.goto(server.url + '/');
    await page.getByRole('heading', { name: 'This Spyglass needs a token' }).waitFor();
    await page.getByLabel('Token', { exact: true }).fill('nonsense');
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.getByText('That token was not accepted').waitFor();
    assert.equal(await page.getByLabel('Token', { exact: true }).inputValue(), '', 'the refused token is not put back');
    await shot(page, 'token-refused');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 390, height: 844 });
    await look(page, 'token-refused-dark-390');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByLabel('Token', { exact: true }).fill('bob-secret-0123456');
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.getByText(/^bob: \d+ of \d+ running$/).waitFor();
    const stored = () => page.evaluate(() => [sessionStorage.getItem('spyglass.token'), localStorage.getItem('spyglass.token')]);
    assert.deepEqual(await stored(), ['bob-secret-0123456', null]);
    await page.reload();
    await page.getByText(/^bob: \d+ of \d+ running$/).waitFor();
    // remembered on this browser: in localStorage, for the next tab too
    await page.getByRole('button', { name: 'Token' }).click();
    await page.getByLabel('Token', { exact: true }).fill('bob-secret-0123456');
    await page.getByLabel('Remember on this browser').check();
    await page.getByRole('button', { name: 'Use this token' }).click();
    await expectEventually(async () => (await stored())[1] === 'bob-secret-0123456');
    const next = await page.context().newPage();
    await next.goto(server.url + '/');
    await next.getByText(/^bob: \d+ of \d+ running$/).waitFor();
    noProblems(page);
    await page.context().close();
  });

  it('T2-17: someone else’s run is "not available to you", not "no longer kept"', T, async () => {
    const q = 'SELECT COUNT(*) AS n FROM STREAM(30s, TIME) WINDOWING TUMBLING(1s, TIME)';
    const ann = await server.api('POST', '/api/queries', { query: q, detached: true });
    const bob = await newPage({ token: 'bob-secret-0123456' });
    await bob.goto(queryUrl(server.url, q, { run: ann.body.id }));
    const alert = bob.getByRole('alert');
    await alert.waitFor();
    assert.equal(await alert.textContent(), 'This run is not available to you: it ended a while ago or belongs to someone else.');
    await server.api('DELETE', `/api/queries/${ann.body.id}`);
    noProblems(bob);
    await bob.context().close();
  });

  it('T2-10, T2-08: "Write a query first" goes once there is text; an error after emoji is underlined where it is', T, async () => {
    const page = await newPage();
    await page.goto(server.url + '/');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText('Write a query first, or build one with the builder.').waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.type("SELECT '🚀🚀🚀' AS x, FOO(1) FROM STREAM(1s, TIME)");
    await page.keyboard.press('Escape');
    assert.equal(await page.getByText('Write a query first').count(), 0);
    const mark = page.locator('.cm-lintRange-error');
    await expectEventually(async () => (await mark.count()) === 1 && (await mark.textContent()) === 'FOO');
    noProblems(page);
    await page.context().close();
  });

  it('T2-11, T2-12: the table formats numbers (full value on hover) and sorts by a header; window axes count whole windows', T, async () => {
    const page = await newPage();
    await page.goto(queryUrl(server.url, 'SELECT device, COUNT(*) AS n, AVG(duration) AS avgDuration FROM STREAM(4s, TIME) GROUP BY device WINDOWING TUMBLING(1s, TIME)'));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
    const header = page.locator('th', { has: page.getByRole('button', { name: 'n', exact: true }) });
    assert.equal(await header.getAttribute('aria-sort'), 'none');
    await page.getByRole('button', { name: 'n', exact: true }).click();
    assert.equal(await header.getAttribute('aria-sort'), 'descending');
    const counts = await page.locator('table.data tbody tr td:nth-child(2)').allTextContents();
    const values = counts.map((c) => Number(c.replace(/\D/g, '')));
    assert.deepEqual(values, [...values].sort((a, b) => b - a));
    const avg = page.locator('table.data tbody tr td:nth-child(3)').first();
    const full = await avg.getAttribute('title');
    assert.ok(full && /^\d+(\.\d+)?$/.test(full), `the full value on hover: ${full}`);
    const shown = await avg.textContent();
    assert.match(shown, /^[\d,]+(\.\d{1,3})?$/);
    assert.ok(Math.abs(Number(shown.replace(/,/g, '')) - Number(full)) <= 0.0005, `${shown} rounds ${full}`);
    await page.getByRole('button', { name: 'n', exact: true }).click();
    assert.equal(await header.getAttribute('aria-sort'), 'ascending');
    await shot(page, 'results-sorted');
    await page.emulateMedia({ colorScheme: 'dark' });
    await look(page, 'results-sorted-dark');
    await page.setViewportSize({ width: 390, height: 844 });
    await look(page, 'results-sorted-390');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.getByRole('tab', { name: 'Chart' }).click();
    await page.getByLabel('Chart', { exact: true }).selectOption('lines');
    await page.locator('.chart canvas').waitFor();
    const ticks = await page.locator('.chart').evaluate((el) => el.__plot.axes[0]._splits);
    assert.ok(ticks.length >= 2 && ticks.every((t) => Number.isInteger(t)), `whole window numbers: ${ticks}`);
    noProblems(page);
    await page.context().close();
  });

  it('T2-13: a FREQ histogram labels every few bars with short ranges; a quantile curve may be drawn on a log scale', T, async () => {
    for (const width of [1280, 390]) {
      const page = await newPage({ width, height: 844 });
      await page.goto(queryUrl(server.url, 'SELECT FREQ(duration, REGION, 2000, 20000, 500) FROM STREAM(2s, TIME)', { view: 'chart' }));
      await page.getByRole('button', { name: 'Run' }).click();
      await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
      await page.locator('.chart canvas').waitFor();
      const labels = await page.locator('.chart').evaluate((el) => el.__plot.axes[0]._values);
      const bars = await page.locator('.chart').evaluate((el) => el.__plot.data[0].length);
      assert.ok(bars >= 38, `${bars} bars`);
      assert.ok(labels.length < bars / 2, `every few bars labelled: ${labels.length} labels for ${bars} bars`);
      assert.ok(labels.every((l) => l.length <= 12), `short labels: ${labels}`);
      assert.ok(labels.includes('< 2k') && labels.some((l) => /^\d+(\.\d)?k–\d+(\.\d)?k$/.test(l)), `${labels}`);
      await page.locator('.chart').scrollIntoViewIfNeeded();
      await shot(page, width === 390 ? 'freq-narrow' : 'freq');
      noProblems(page);
      await page.context().close();
    }
    const page = await newPage({ colorScheme: 'dark' });
    await page.goto(queryUrl(server.url, 'SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(2s, TIME)', { view: 'chart' }));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
    await page.getByLabel('Log scale').check();
    await expectEventually(async () => (await page.locator('.chart').evaluate((el) => el.__plot?.scales.y.distr)) === 3);
    await expectEventually(async () => /scale=log/.test(page.url()));
    await shot(page, 'dark-quantiles-log');
    noProblems(page);
    await page.context().close();
  });

  it('T2-14, T2-15: raw records get the table only, and the last rows stay when the final result is empty', T, async () => {
    const page = await newPage();
    await page.goto(queryUrl(server.url, 'SELECT id, device, status, duration, browser_name FROM STREAM(3s, TIME) WHERE status >= 500 WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)'));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
    assert.deepEqual(await page.getByRole('tab').allTextContents(), ['Table', 'JSON']);
    assert.match(await page.locator('.toolbar .meta').textContent(), /1 row · the final result came without rows/);
    assert.equal(await page.locator('table.data tbody tr').count(), 1);
    noProblems(page);
    await page.context().close();
  });

  it('SEC-15, T2-22: CSV export writes formulas from the stream as text', T, async () => {
    const page = await newPage();
    const q = "SELECT id, s, n FROM STREAM(20s, TIME) WHERE kind = 'csvtest' LIMIT 1";
    await page.goto(queryUrl(server.url, q));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/s left/).waitFor();
    const body = JSON.stringify({ id: 'c4-' + Date.now(), kind: 'csvtest', s: '=HYPERLINK("http://evil.example","click")', n: -3 });
    await expectEventually(async () => {
      await fetch(server.url + '/api/ingest', { method: 'POST', headers: { Authorization: 'Bearer ann-secret-0123456' }, body });
      return (await page.locator('table.data tbody tr').count()) > 0;
    });
    await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV', exact: true }).click()]);
    const lines = readFileSync(await download.path(), 'utf8').trimEnd().split('\r\n');
    assert.equal(lines[0], 'id,s,n');
    assert.match(lines[1], /^c4-\d+,"'=HYPERLINK\(""http:\/\/evil\.example"",""click""\)",-3$/);
    noProblems(page);
    await page.context().close();
  });

  it('T2-26: the Running page filters, stops the queries selected, and all of mine', T, async () => {
    const ids = [];
    for (let i = 0; i < 6; i++) {
      const r = await server.api('POST', '/api/queries', { query: `SELECT COUNT(*) AS n${i} FROM STREAM(90s, TIME)`, detached: true });
      assert.equal(r.status, 201);
      ids.push(r.body.id);
    }
    const bobs = await server.api('POST', '/api/queries', { query: 'SELECT COUNT(*) AS bobs FROM STREAM(90s, TIME)', detached: true }, 'bob-secret-0123456');
    const page = await newPage();
    await page.goto(server.url + '/#/running');
    await page.locator(`tr[data-query-id="${ids[5]}"]`).waitFor();
    await page.getByLabel('Filter queries').fill('AS n1');
    await expectEventually(async () => (await page.locator('table.queries').first().locator('tbody tr').count()) === 1);
    await page.getByLabel(`Select query ${ids[1]}`).check();
    await shot(page, 'running-filter');
    await page.getByRole('button', { name: 'Stop selected (1)' }).click();
    await expectEventually(async () => (await server.api('GET', `/api/queries/${ids[1]}`)).body.state !== 'running');
    assert.equal((await server.api('GET', `/api/queries/${ids[0]}`)).body.state, 'running');
    await page.getByLabel('Filter queries').fill('');
    for (const [colorScheme, width] of [['dark', 1280], ['light', 390]]) {
      const other = await newPage({ colorScheme, width, height: 844 });
      await other.goto(server.url + '/#/running');
      await other.locator(`tr[data-query-id="${ids[5]}"]`).waitFor();
      await look(other, `running-${colorScheme}-${width}`);
      noProblems(other);
      await other.context().close();
    }
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: /^Stop all of mine \(\d+\)$/ }).click();
    for (const id of ids) await expectEventually(async () => (await server.api('GET', `/api/queries/${id}`)).body.state !== 'running');
    await page.getByText('No query is running.').waitFor();
    // bob's query is not ann's to stop
    assert.equal((await server.api('GET', `/api/queries/${bobs.body.id}`, undefined, 'bob-secret-0123456')).body.state, 'running');
    await server.api('DELETE', `/api/queries/${bobs.body.id}`, undefined, 'bob-secret-0123456');
    noProblems(page);
    await page.context().close();
  });

  it('T2-07: the Standing page lists standing queries, creates one, shows its report and deletes it', T, async () => {
    const page = await newPage();
    await page.goto(server.url + '/');
    await page.getByRole('link', { name: 'Standing' }).click();
    await page.getByText('No standing query yet.').waitFor();
    await page.getByRole('button', { name: 'New standing query…' }).click();
    await page.getByLabel('Name of the standing query').fill('usage-by-org');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByRole('link', { name: 'usage-by-org' }).waitFor();
    assert.match(page.url(), /#\/standing\/usage-by-org$/);
    const t0 = Date.UTC(2026, 0, 1);
    const docs = [];
    for (let i = 0; i < 30; i++) docs.push(JSON.stringify({ id: `u-${i}`, org: ['acme', 'globex', 'initech'][i % 3], quantity: i, time: t0 + i * 600_000 }));
    const r = await fetch(server.url + '/api/ingest', { method: 'POST', headers: { Authorization: 'Bearer ann-secret-0123456' }, body: docs.join('\n') });
    assert.equal(r.status, 202);
    await page.reload();
    await page.locator('section.report table.data tbody tr').first().waitFor({ timeout: 20_000 });
    assert.match(await page.locator('section.report table.data thead').textContent(), /org.*docs.*total/);
    await shot(page, 'standing');
    for (const [colorScheme, width] of [['dark', 1280], ['light', 390]]) {
      const other = await newPage({ colorScheme, width, height: 844 });
      await other.goto(server.url + '/#/standing/usage-by-org');
      await other.locator('section.report table.data tbody tr').first().waitFor({ timeout: 20_000 });
      await look(other, `standing-${colorScheme}-${width}`);
      await other.getByRole('tab', { name: 'Chart' }).click();
      await other.locator('.chart canvas').waitFor();
      await look(other, `standing-chart-${colorScheme}-${width}`);
      noProblems(other);
      await other.context().close();
    }
    // bob may read it but not delete it
    const bob = await newPage({ token: 'bob-secret-0123456' });
    await bob.goto(server.url + '/#/standing/usage-by-org');
    await bob.locator('section.report table.data tbody tr').first().waitFor({ timeout: 20_000 });
    assert.equal(await bob.getByRole('button', { name: 'Delete usage-by-org' }).count(), 0);
    noProblems(bob);
    await bob.context().close();
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete usage-by-org' }).click();
    await page.getByText('No standing query yet.').waitFor();
    noProblems(page);
    await page.context().close();
  });

  it('SEC-14: the pages carry a Content-Security-Policy and cannot be framed', T, async () => {
    const res = await fetch(server.url + '/');
    assert.match(res.headers.get('content-security-policy'), /script-src 'self';.*frame-ancestors 'none'/);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    const page = await newPage();
    await page.setContent(`<iframe src="${server.url}/"></iframe>`);
    await page.waitForTimeout(1000);
    const framed = page.frames().find((f) => f.url().startsWith(server.url));
    const text = framed ? await framed.evaluate(() => document.body?.innerText ?? '').catch(() => '') : '';
    assert.ok(!/Spyglass/.test(text), 'the UI showed inside another page’s frame');
    await page.context().close();
  });
});
