// Browser tests of sinks and the export in Debian's headless Chromium against a real `spyglass
// serve` that allows a webhook receiver (a real HTTP server of this test, on loopback) and a sink
// folder: the query page's Sinks field, the Running page's Sinks column, and the exports that come
// from GET /api/queries/{id}/export.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchBrowser, newPage, queryUrl, shot, startServer } from './harness.mjs';

let server;
let browser;
let receiver;
let hookUrl;
const received = [];
const sinkDir = mkdtempSync(join(tmpdir(), 'spyglass-ui-sinks-'));

before(async () => {
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push(JSON.parse(body));
      res.writeHead(204).end();
    });
  });
  await new Promise((ok) => receiver.listen(0, '127.0.0.1', ok));
  const hostPort = `127.0.0.1:${receiver.address().port}`;
  hookUrl = `http://${hostPort}/hook`;
  const extra = ['--sink-allow', hostPort, '--sink-dir', sinkDir];
  [server, browser] = await Promise.all([startServer({ extra }), launchBrowser()]);
});

after(async () => {
  await browser?.close();
  await server?.stop();
  receiver?.close();
});

const T = { timeout: 150_000 };
const WINDOWED = 'SELECT device, COUNT(*) AS n FROM STREAM(4s, TIME) GROUP BY device WINDOWING TUMBLING(1s, TIME)';

async function expectEventually(check, ms = 20_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('not within ' + ms + ' ms');
    await new Promise((r) => setTimeout(r, 100));
  }
}

function runId(page) {
  return new URLSearchParams(page.url().split('?')[1]).get('run');
}

describe('sinks and the export', () => {
  it('sends every result of a run to the sinks added in the Sinks field', T, async () => {
    const page = await newPage(browser);
    await page.goto(queryUrl(server.url, WINDOWED));
    await page.getByText('Sinks', { exact: true }).click();
    await page.getByRole('button', { name: 'Add sink' }).click();
    await page.getByLabel('Sink 1 target').fill(hookUrl);
    await page.getByRole('button', { name: 'Add sink' }).click();
    await page.getByLabel('Sink 2 type').selectOption('file');
    await page.getByLabel('Sink 2 target').fill('ui/run.ndjson');
    await shot(page, 'query-sinks');
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
    const id = runId(page);
    const info = await server.api('GET', `/api/queries/${id}`);
    const results = info.body.progress.resultsEmitted;
    await expectEventually(async () => received.filter((d) => d.query === id).length === results);
    const docs = received.filter((d) => d.query === id);
    assert.deepEqual(
      docs.map((d) => d.key),
      docs.map((d) => `${id}:${d.window}`),
    );
    await expectEventually(async () => {
      try {
        return readFileSync(join(sinkDir, 'ui/run.ndjson'), 'utf8').trimEnd().split('\n').length === results;
      } catch {
        return false;
      }
    });

    await page.goto(server.url + '/#/running');
    const row = page.locator(`tr[data-query-id="${id}"]`);
    await row.waitFor();
    assert.equal((await row.locator('td.sinks').textContent()).trim(), '2 sinks');
    assert.match(await row.locator('td.sinks').getAttribute('title'), new RegExp(`webhook ${hookUrl}: ${results} delivered, 0 dropped`));
    await shot(page, 'running-sinks');
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });

  it('says which sink the service refuses, and runs nothing', T, async () => {
    const page = await newPage(browser);
    await page.goto(queryUrl(server.url, WINDOWED));
    await page.getByText('Sinks', { exact: true }).click();
    await page.getByRole('button', { name: 'Add sink' }).click();
    await page.getByLabel('Sink 1 target').fill('http://169.254.169.254/latest/meta-data');
    await page.getByRole('button', { name: 'Run' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(await alert.textContent(), /169\.254\.169\.254:80 is not one this service may send to.*--sink-allow/);
    assert.equal(runId(page), null);
    await page.context().close();
  });

  it('exports every window from the service as CSV and NDJSON', T, async () => {
    const page = await newPage(browser);
    await page.goto(queryUrl(server.url, WINDOWED));
    await page.getByRole('button', { name: 'Run' }).click();
    await page.getByText(/^finished/).waitFor({ timeout: 30_000 });
    const id = runId(page);
    const [csv] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'CSV, all windows' }).click()]);
    assert.equal(csv.suggestedFilename(), `spyglass-${id}-all.csv`);
    const lines = readFileSync(await csv.path(), 'utf8').trimEnd().split('\r\n');
    assert.equal(lines[0], 'window,device,n');
    const exported = await fetch(`${server.url}/api/queries/${id}/export?format=ndjson`).then((r) => r.text());
    const results = exported.trimEnd().split('\n').map((l) => JSON.parse(l));
    const rows = results.flatMap((r) => r.records.map((rec) => `${r.meta.window.number},${rec.device},${rec.n}`));
    assert.deepEqual(lines.slice(1), rows);
    const [nd] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'NDJSON, all windows' }).click()]);
    assert.equal(readFileSync(await nd.path(), 'utf8'), exported);
    assert.deepEqual(page.problems, []);
    await page.context().close();
  });
});
