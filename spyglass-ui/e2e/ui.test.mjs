// Browser tests of the web UI in Debian's headless Chromium against a real `spyglass serve` on the
// generator. Each test drives the page as a person would and checks what the page and the API say.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, newPage as openPage, queryUrl, shot, startServer } from './harness.mjs';

let server;
let browser;

// the service runs with tokens: every page below holds ann's, but for the test of the prompt
const TOKENS = 'ann-secret-0123456 ann\nbob-secret-0123456 bob\n';
const LIMIT = 5;
let newPage;

before(async () => {
  const tokens = join(mkdtempSync(join(tmpdir(), 'spyglass-ui-tokens-')), 'tokens');
  writeFileSync(tokens, TOKENS);
  const extra = ['--tokens', tokens, '--max-queries-per-user', String(LIMIT)];
  [server, browser] = await Promise.all([startServer({ extra, token: 'ann-secret-0123456' }), launchBrowser()]);
  newPage = (b, options = {}) => openPage(b, { token: 'ann-secret-0123456', ...options });
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

const T = { timeout: 150_000 };

/** The id of the run the page shows (it is in the URL). */
function runId(page) {
  return new URL(page.url().replace('#/', '')).searchParams.get('run') ?? new URLSearchParams(page.url().split('?')[1]).get('run');
}

async function waitFinal(page) {
  await page.getByText(/finished/).first().waitFor({ timeout: 30_000 });
}

function noProblems(page) {
  assert.deepEqual(page.problems, [], 'the page logged errors');
}

describe('the web UI', () => {
  it('completes fields with their types while typing, and streams results into a table and a chart', T, async () => {
    const page = await newPage(browser);
    await page.goto(server.url + '/');
    await page.getByText(`ann: 0 of ${LIMIT} running`).waitFor();
    await shot(page, 'query-empty');
    // the schema is sampled live: wait until the stream's fields are known
    await expectEventually(async () => (await server.api('GET', '/api/schema')).body.fields.length > 10);
    await page.reload();
    await page.locator('.cm-content').click();
    await page.keyboard.type('SELECT devi');
    const option = page.locator('.cm-tooltip-autocomplete li', { hasText: 'device' }).first();
    await option.waitFor();
    assert.match(await option.textContent(), /STRING/);
    await shot(page, 'query-completion');
    // chosen with the mouse: Enter is ignored for a moment after the list changes (CodeMirror's
    // interaction delay), which a loaded machine can hit
    await option.click();
    await page.keyboard.type(', COUNT(*) AS n FROM STREAM(20s, TIME) GROUP BY device WINDOWING TUMBLING(1s, TIME)');
    await page.keyboard.press('Escape'); // closes a completion left open
    const text = await page.locator('.cm-content').textContent();
    assert.equal(text, 'SELECT device, COUNT(*) AS n FROM STREAM(20s, TIME) GROUP BY device WINDOWING TUMBLING(1s, TIME)');
    await page.keyboard.press('Control+Enter');
    // results stream in: the window selector grows while the query runs
    await page.locator('select[aria-label="Window"] option').nth(3).waitFor({ state: 'attached', timeout: 20_000 });
    const rows = await page.locator('table.data tbody tr').count();
    assert.ok(rows > 3, `expected a row per device, saw ${rows}`);
    assert.match(await page.locator('.progress .stats').textContent(), /s left · [\d,]+ records seen · \d+ results/);
    await shot(page, 'results-table');
    await page.getByRole('tab', { name: 'Chart' }).click();
    const canvas = page.locator('.chart canvas');
    await canvas.waitFor();
    await page.waitForTimeout(300);
    // bars in the series' colour (axes and grid are grey): one per device
    assert.ok((await seriesPixels(canvas)) > 2000, 'the chart drew no bars');
    assert.match(page.url(), /view=chart/);
    await shot(page, 'results-chart');
    // pause: step back while results keep arriving, then back to live
    await page.getByRole('button', { name: 'Pause' }).click();
    const paused = await page.locator('select[aria-label="Window"]').inputValue();
    await page.getByRole('button', { name: 'Earlier window' }).click();
    assert.equal(await page.locator('select[aria-label="Window"]').inputValue(), String(Number(paused) - 1));
    assert.match(page.url(), new RegExp(`w=${Number(paused) - 1}`));
    await page.getByRole('button', { name: /Back to live \(\d+ newer\)/ }).waitFor({ timeout: 5_000 });
    await shot(page, 'results-paused');
    await page.getByRole('button', { name: /Back to live/ }).click();
    assert.equal(await page.locator('select[aria-label="Window"]').inputValue(), 'live');
    await page.keyboard.press('Escape');
    noProblems(page);
    await page.context().close();
  });

  it('underlines an error at its column as you type, with the fix', T, async () => {
    const page = await newPage(browser);
    await page.goto(server.url + '/');
    await page.locator('.cm-content').click();
    await page.keyboard.type('SELECT FOO(x) FROM STREAM()');
    await page.keyboard.press('Escape');
    const mark = page.locator('.cm-lintRange-error');
    // on a loaded machine a pause in the typing may lint a part of the text first
    await expectEventually(async () => (await mark.count()) === 1 && (await mark.textContent()) === 'FOO');
    const item = page.locator('ul.lint li');
    assert.match(await item.textContent(), /Line 1, column 8: Unknown function FOO.*Fix: Did you mean/);
    await mark.hover();
    await page.locator('.cm-tooltip-lint').waitFor();
    assert.match(await page.locator('.cm-tooltip-lint').textContent(), /Fix: Did you mean/);
    await shot(page, 'query-error');
    noProblems(page);
    await page.context().close();
  });

  it('stops a running query: its final result shows what it saw', T, async () => {
    const page = await newPage(browser);
    await page.goto(queryUrl(server.url, 'SELECT COUNT(*) AS n FROM STREAM(120s, TIME)'));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/s left/).waitFor();
    const id = runId(page);
    await page.waitForTimeout(1000);
    await page.getByRole('button', { name: 'Stop' }).click();
    await waitFinal(page);
    const n = Number((await page.locator('table.data tbody td').first().textContent()).replace(/,/g, '')); // 4,321
    assert.ok(n > 0, 'the final result counts the records seen');
    const info = await server.api('GET', `/api/queries/${id}`);
    assert.equal(info.body.state, 'stopped'); // as its history says
    assert.ok(info.body.progress.elapsedMs < 60_000);
    noProblems(page);
    await page.context().close();
  });

  it('saves a query, renames it, and opens its share link in another browser', T, async () => {
    const page = await newPage(browser);
    const q = 'SELECT TOP(5, browser_name) AS n FROM STREAM(3s, TIME)';
    await page.goto(queryUrl(server.url, q));
    await page.getByRole('button', { name: 'Save…' }).click();
    await page.getByLabel('Name of the saved query').fill('top browsers');
    await page.waitForTimeout(1000); // the page renders again meanwhile (lint, quota): the name must stay
    assert.equal(await page.getByLabel('Name of the saved query').inputValue(), 'top browsers');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const link = page.locator('a.share-link');
    await link.waitFor();
    const href = await link.getAttribute('href');
    assert.match(href, /\/#\/saved\/[\w-]+$/);
    assert.match(page.url(), /#\/saved\//);
    await shot(page, 'query-saved');

    const other = await newPage(browser); // a fresh context: no storage shared with the first
    await other.goto(href);
    await other.getByText('Saved query top browsers').waitFor();
    await expectEventually(async () => (await other.locator('.cm-content').textContent()) === q);
    await other.getByRole('button', { name: 'Run' }).click();
    await waitFinal(other);
    assert.ok((await other.locator('table.data tbody tr').count()) >= 1);
    noProblems(other);
    await other.context().close();

    await page.goto(server.url + '/#/saved');
    await page.getByRole('button', { name: 'Rename top browsers' }).click();
    await page.getByLabel('New name for top browsers').fill('browsers, top 5');
    await page.getByRole('button', { name: 'OK', exact: true }).click();
    await page.getByRole('link', { name: 'browsers, top 5' }).waitFor();
    await shot(page, 'saved');
    const id = href.split('/').pop();
    assert.equal((await server.api('GET', `/api/saved/${id}`)).body.name, 'browsers, top 5');
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete browsers, top 5' }).click();
    await page.getByText('No saved queries yet').waitFor();
    assert.equal((await server.api('GET', `/api/saved/${id}`)).status, 404);
    noProblems(page);
    await page.context().close();
  });

  it('exports the result as CSV with the rows the API returns, and pivots two keys', T, async () => {
    const page = await newPage(browser);
    await page.goto(queryUrl(server.url, "SELECT device, app.name, COUNT(*) AS n, MAX(latency_ms) AS worst FROM STREAM(2s, TIME) WHERE device IN ('mobile', 'desktop', 'tablet', 'watch') GROUP BY device, app.name"));
    await page.getByRole('button', { name: 'Run' }).click();
    await waitFinal(page);
    const id = runId(page);
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV', exact: true }).click()]);
    const csv = readFileSync(await download.path(), 'utf8');
    const api = (await server.api('GET', `/api/queries/${id}`)).body.lastResult.records;
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], 'device,app.name,n,worst');
    const expected = api.map((r) => [r.device, r['app.name'], r.n, r.worst].map((v) => (v == null ? '' : String(v))).join(','));
    assert.deepEqual(lines.slice(1).sort(), expected.sort());
    assert.ok(expected.length > 3);

    await page.getByRole('tab', { name: 'Pivot' }).click();
    const pivot = page.locator('table.pivot');
    await pivot.waitFor();
    assert.match(await pivot.locator('caption').textContent(), /n by device \(down\) and app\.name \(across\)/);
    const total = api.reduce((a, r) => a + r.n, 0);
    assert.equal((await pivot.locator('tfoot td').last().textContent()).replace(/\D/g, ''), String(total));
    await shot(page, 'results-pivot');
    noProblems(page);
    await page.context().close();
  });

  it('builds a query with the builder, runs it, and reads simple BQL back', T, async () => {
    const page = await newPage(browser);
    await page.goto(server.url + '/#/query?builder=1');
    await page.getByLabel('Kind of result').selectOption('top');
    await page.getByLabel('Add a field to: Most frequent values of').fill('browser_name');
    await page.keyboard.press('Enter');
    await page.getByLabel('K', { exact: true }).fill('4');
    await page.getByLabel('Duration in seconds').fill('3');
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.getByLabel('Filter 1 field').fill('status');
    await page.getByLabel('Filter 1 operator').selectOption('>=');
    await page.getByLabel('Filter 1 value').fill('200');
    const expected = 'SELECT TOP(4, browser_name) FROM STREAM(3s, TIME) WHERE status >= 200';
    await expectEventually(async () => (await page.locator('.cm-content').textContent()) === expected);
    await shot(page, 'builder');
    await page.getByRole('button', { name: 'Run' }).click();
    await waitFinal(page);
    const header = await page.locator('table.data thead').textContent();
    assert.match(header, /browser_name/);
    const rows = await page.locator('table.data tbody tr').count();
    assert.ok(rows >= 1 && rows <= 4, `TOP 4 gave ${rows} rows`);
    await page.getByRole('tab', { name: 'Chart' }).click();
    await page.locator('.chart canvas').waitFor();
    await expectEventually(async () => (await seriesPixels(page.locator('.chart canvas'))) > 500);

    // the editor's text goes back into the builder, or the builder says why not
    await page.goto(queryUrl(server.url, "SELECT device, AVG(duration) AS d FROM STREAM(10s, TIME) WHERE device != 'tv' GROUP BY device", { builder: '1' }));
    await expectEventually(async () => (await page.getByLabel('Kind of result').inputValue()) === 'group');
    assert.equal(await page.getByLabel('Aggregate 1 function').inputValue(), 'AVG');
    assert.equal(await page.getByLabel('Filter 1 value').inputValue(), 'tv');
    await page.goto(queryUrl(server.url, 'SELECT id FROM STREAM(10s, TIME) WHERE a = 1 OR b = 2', { builder: '1' }));
    await page.getByText('The builder cannot show this query: OR in WHERE').waitFor();
    await shot(page, 'builder-cannot-show');
    noProblems(page);
    await page.context().close();
  });

  it('lists running queries with their progress and stops one', T, async () => {
    const submitted = await server.api('POST', '/api/queries', { query: 'SELECT COUNT(*) AS n FROM STREAM(90s, TIME) WINDOWING TUMBLING(5s, TIME)', detached: true });
    assert.equal(submitted.status, 201);
    const id = submitted.body.id;
    const page = await newPage(browser);
    await page.goto(server.url + '/#/running');
    const row = page.locator(`tr[data-query-id="${id}"]`);
    await row.waitFor();
    await page.waitForTimeout(1200);
    assert.match(await row.textContent(), /ann/);
    // detached and read by no client: an orphan, said so with its owner
    assert.match(await row.textContent(), /no client for .* detached: runs to its end/);
    await page.getByText(/(is an orphan|are orphans)/).waitFor();
    assert.ok(Number(await row.getByRole('progressbar').getAttribute('aria-valuenow')) >= 0);
    await shot(page, 'running');
    await page.getByRole('button', { name: `Stop query ${id}` }).click();
    await expectEventually(async () => (await server.api('GET', `/api/queries/${id}`)).body.state === 'stopped');
    await page.getByRole('heading', { name: 'Ended recently' }).waitFor();
    noProblems(page);
    await page.context().close();
  });

  it('asks for a token once and keeps it; says when to retry after too many queries', T, async () => {
    const page = await openPage(browser); // no token kept
    await page.goto(server.url + '/');
    await page.getByRole('heading', { name: 'This Spyglass needs a token' }).waitFor();
    await shot(page, 'token');
    await page.getByLabel('Token', { exact: true }).fill('bob-secret-0123456');
    await page.getByRole('button', { name: 'Use this token' }).click();
    await page.getByText(`bob: 0 of ${LIMIT} running`).waitFor();
    await page.reload();
    await page.getByText(`bob: 0 of ${LIMIT} running`).waitFor(); // kept in the browser
    assert.equal(await page.getByRole('heading', { name: 'This Spyglass needs a token' }).isVisible(), false);

    const ids = [];
    for (let i = 0; i < LIMIT; i++) {
      const r = await server.api('POST', '/api/queries', { query: 'SELECT COUNT(*) AS n FROM STREAM(60s, TIME)', detached: true }, 'bob-secret-0123456');
      assert.equal(r.status, 201);
      ids.push(r.body.id);
    }
    await page.goto(queryUrl(server.url, 'SELECT COUNT(*) AS n FROM STREAM(10s, TIME)'));
    await page.getByRole('button', { name: 'Run' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /^Too many queries.+\. Try again in \d+ s \(at .+\)\.$/);
    await page.getByText(`bob: ${LIMIT} of ${LIMIT} running`).waitFor({ timeout: 10_000 });
    await shot(page, 'too-many');
    for (const id of ids) assert.equal((await server.api('DELETE', `/api/queries/${id}`, undefined, 'bob-secret-0123456')).status, 204);
    noProblems(page);
    await page.context().close();
  });

  it('shows the schema, the history, the shortcuts, a narrow window and the dark theme', T, async () => {
    const page = await newPage(browser);
    await page.goto(server.url + '/#/schema');
    await page.locator('table.schema tbody tr').nth(10).waitFor();
    // this service does not meter: no page for standing queries
    assert.equal(await page.getByRole('link', { name: 'Standing' }).count(), 0);
    assert.match(await page.locator('table.schema').textContent(), /demographics\.country.*STRING/s);
    await shot(page, 'schema');
    await page.goto(server.url + '/#/history');
    await page.locator('table.history tbody tr').first().waitFor();
    await shot(page, 'history');
    await page.goto(server.url + '/');
    await page.locator('body').press('?');
    await page.getByRole('heading', { name: 'Keyboard shortcuts' }).waitFor();
    await shot(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await page.context().close();

    const narrow = await newPage(browser, { width: 390, height: 844 });
    await narrow.goto(queryUrl(server.url, 'SELECT device, COUNT(*) AS n FROM STREAM(2s, TIME) GROUP BY device'));
    await narrow.getByRole('button', { name: 'Run' }).click();
    await waitFinal(narrow);
    const overflow = await narrow.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `the narrow page scrolls sideways by ${overflow}px`);
    await shot(narrow, 'narrow');
    noProblems(narrow);
    await narrow.context().close();

    const dark = await newPage(browser, { colorScheme: 'dark' });
    await dark.goto(queryUrl(server.url, 'SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(2s, TIME)', { view: 'chart' }));
    await dark.getByRole('button', { name: 'Run' }).click();
    await waitFinal(dark);
    await dark.locator('.chart canvas').waitFor();
    await expectEventually(async () => (await seriesPixels(dark.locator('.chart canvas'))) > 200); // the curve
    const bg = await dark.evaluate(() => getComputedStyle(document.body).backgroundColor);
    assert.equal(bg, 'rgb(22, 24, 29)');
    await shot(dark, 'dark-quantiles');
    noProblems(dark);
    await dark.context().close();
  });
});

async function expectEventually(check, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > end) assert.fail('condition not met in time: ' + check.toString());
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Pixels a chart's canvas has painted in a strong colour: its series (bars, lines, points), not
 * the grey axes, grid and labels, which an empty chart draws too.
 */
async function seriesPixels(canvas) {
  return canvas.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] < 128) continue;
      if (Math.max(d[i], d[i + 1], d[i + 2]) - Math.min(d[i], d[i + 1], d[i + 2]) > 80) n++;
    }
    return n;
  });
}
