// Page weight and speed of the web UI, as numbers (not a test): the JS and CSS it loads (gzip),
// the time from Run to the first result on screen, and the frames the page keeps while raw
// results arrive at 1,000 rows per second. Run after building the jar: npm run measure
import { readFileSync, readdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { launchBrowser, newPage, queryUrl, startServer } from './harness.mjs';

const dist = new URL('../target/classes/spyglass-ui/', import.meta.url).pathname;

function weight() {
  const files = ['index.html', ...readdirSync(join(dist, 'assets')).map((f) => 'assets/' + f)];
  const rows = files.map((f) => {
    const bytes = readFileSync(join(dist, f));
    return { file: f, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sum = (pred) => rows.filter(pred).reduce((a, r) => ({ bytes: a.bytes + r.bytes, gzip: a.gzip + r.gzip }), { bytes: 0, gzip: 0 });
  const chart = (r) => r.file.includes('Chart');
  return {
    files: rows,
    firstLoad: sum((r) => !chart(r)),
    firstLoadJs: sum((r) => r.file.endsWith('.js') && !chart(r)),
    firstLoadCss: sum((r) => r.file.endsWith('.css') && !chart(r)),
    chartJs: sum((r) => r.file.endsWith('.js') && chart(r)),
    chartCss: sum((r) => r.file.endsWith('.css') && chart(r)),
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kb = (n) => (n / 1024).toFixed(1) + ' KiB';

/** Clicks Run and waits, inside the page, for the first row of a result to be painted. */
async function timeToFirstResult(page, url) {
  await page.goto(url);
  await page.locator('.cm-content').waitFor();
  return page.evaluate(
    () =>
      new Promise((done) => {
        const t0 = performance.now();
        document.querySelector('button.primary').click();
        const check = () => {
          if (document.querySelector('table.data tbody tr')) requestAnimationFrame(() => done(performance.now() - t0));
          else requestAnimationFrame(check);
        };
        check();
      }),
  );
}

/**
 * Frames painted and long tasks while results stream in, over {@code ms}; with {@code run} false,
 * on the same page with nothing running (the machine's baseline).
 */
async function frames(page, url, ms, run = true) {
  await page.goto(url);
  await page.locator('.cm-content').waitFor();
  if (run) {
    await page.getByRole('button', { name: 'Run' }).click();
    await page.locator('table.data tbody tr').first().waitFor({ timeout: 30_000 });
  }
  // the main thread's time, as Chromium counts it, over the same span
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const before = await metrics();
  const f = await page.evaluate(
    (ms) =>
      new Promise((done) => {
        const long = [];
        const obs = new PerformanceObserver((l) => l.getEntries().forEach((e) => long.push(e.duration)));
        obs.observe({ entryTypes: ['longtask'] });
        // the results received, as the progress line says ("· 123 results")
        const received = () => Number((/([\d,]+) results?/.exec(document.querySelector('.progress .stats')?.textContent ?? '') ?? [0, '0'])[1].replace(/,/g, ''));
        const startResults = received();
        const t0 = performance.now();
        let n = 0;
        let last = t0;
        let worst = 0;
        const tick = (t) => {
          n++;
          worst = Math.max(worst, t - last);
          last = t;
          if (t - t0 < ms) requestAnimationFrame(tick);
          else {
            obs.disconnect();
            const seconds = (t - t0) / 1000;
            done({
              fps: n / seconds,
              worstFrameMs: worst,
              longTasks: long.length,
              longTaskMs: long.reduce((a, b) => a + b, 0),
              results: received() - startResults,
              seconds,
            });
          }
        };
        requestAnimationFrame(tick);
      }),
    ms,
  );
  const after = await metrics();
  await cdp.detach();
  for (const k of ['TaskDuration', 'ScriptDuration', 'LayoutDuration', 'LayoutCount']) f[k] = after[k] - before[k];
  return f;
}

const load = () => loadavg().map((x) => x.toFixed(1)).join(', ');
console.log(`## Machine: ${cpus().length} cores, load average ${load()} (1, 5, 15 min) at the start`);
const w = weight();
const both = (x) => `${kb(x.bytes)} raw, ${kb(x.gzip)} gzip`;
console.log('## Page weight (gzip level 9)');
for (const f of w.files) console.log(`  ${f.file}: ${both(f)}`);
console.log(`  first load, HTML + CSS + JS: ${both(w.firstLoad)}`);
console.log(`    JS:  ${both(w.firstLoadJs)}`);
console.log(`    CSS: ${both(w.firstLoadCss)}`);
console.log(`  charts, loaded on the first chart shown: JS ${both(w.chartJs)}; CSS ${both(w.chartCss)}`);

const server = await startServer({ source: 'gen?rate=1000' });
const browser = await launchBrowser();
try {
  const page = await newPage(browser);
  const ttfr = [];
  for (let i = 0; i < 7; i++) ttfr.push(await timeToFirstResult(page, queryUrl(server.url, `SELECT id, device FROM STREAM(10s, TIME) WHERE status >= ${i % 2 ? 200 : 100} LIMIT 1`)));
  console.log('## Time from Run to the first result on screen');
  console.log(`  median ${median(ttfr).toFixed(0)} ms, min ${Math.min(...ttfr).toFixed(0)} ms, max ${Math.max(...ttfr).toFixed(0)} ms (${ttfr.length} runs: ${ttfr.map((x) => x.toFixed(0)).join(', ')})`);

  console.log('## Frames while raw results arrive (generator at 1,000 records/s, 10 s each)');
  for (const [label, q, run] of [
    ['nothing running (baseline)', 'SELECT id FROM STREAM(30s, TIME)', false],
    ['10 results/s x 100 rows', 'SELECT id, device, status, latency_ms, demographics.country FROM STREAM(30s, TIME) WINDOWING TUMBLING(100, RECORD)'],
    ['100 results/s x 10 rows', 'SELECT id, device, status, latency_ms, demographics.country FROM STREAM(30s, TIME) WINDOWING TUMBLING(10, RECORD)'],
  ]) {
    const f = await frames(page, queryUrl(server.url, q), 10_000, run !== false);
    console.log(
      `  ${label}: ${f.fps.toFixed(1)} frames/s, worst frame ${f.worstFrameMs.toFixed(0)} ms, ${f.longTasks} long tasks (${f.longTaskMs.toFixed(0)} ms), ${(f.results / f.seconds).toFixed(1)} results/s arrived; ` +
        `main thread busy ${f.TaskDuration.toFixed(2)} s (script ${f.ScriptDuration.toFixed(2)} s, layout ${f.LayoutDuration.toFixed(2)} s in ${f.LayoutCount} layouts)`,
    );
    await page.keyboard.press('Escape');
  }
  console.log(`## Load average at the end: ${load()}`);
} finally {
  await browser.close();
  await server.stop();
}
