/**
 * A query's results as they arrive: one result per window with a selector (the latest, live, by
 * default; pause to step back while results keep arriving), as a table, a chart chosen by the
 * result's shape, a pivot or raw JSON, and exports of the window shown or of every window.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { toCsv, toJson, windowsCsv } from '../results/export';
import { pivot } from '../results/pivot';
import { ChartType, chartData, chartsFor, logScaleFits, shapeOf } from '../results/shape';
import { SortDir, formatNumber, numericColumns, shownIndex, sortRows } from '../results/table';
import { Result, cell, columns } from '../results/types';
import { download as downloadExport, plainError } from '../api';
import { VIEWS, View } from '../route';
import type { Chart as ChartComponent } from './Chart';

/** uPlot loads when a chart is first shown, keeping it out of the first page load. */
let chartModule: Promise<typeof ChartComponent> | null = null;
function useChart(wanted: boolean): typeof ChartComponent | null {
  const [c, setC] = useState<typeof ChartComponent | null>(null);
  useEffect(() => {
    if (!wanted || c) return;
    chartModule ??= import('./Chart').then((m) => m.Chart);
    chartModule.then((C) => setC(() => C));
  }, [wanted]);
  return c;
}

/** Rows a table shows at most; the rest are in the exports. */
export const MAX_TABLE_ROWS = 500;

export interface ResultsProps {
  results: readonly Result[];
  /** Changes whenever results arrive (the array is appended to in place). */
  version: number;
  view: View;
  chart?: string;
  metric?: string;
  /** 'log' for a log scale. */
  scale?: string;
  /** The window shown; undefined follows the latest. */
  w?: number;
  keys?: string[];
  /** Says which window a result is (a standing query's time range); the window's number otherwise. */
  describe?(r: Result): string | undefined;
  /**
   * The query whose every result the service exports (GET /api/queries/{id}/export): the exports
   * of all windows come from there, not only what this page received; without it, from the page.
   */
  exportId?: string;
  onChange(p: { view?: View; chart?: string; metric?: string; scale?: string; w?: number | undefined }): void;
}

/** Windows whose shape decides the chart. */
const SHAPE_WINDOWS = 20;
/** Windows the selector lists at most (the latest, and the one shown); the arrows reach all. */
const MAX_CHOICES = 300;

function windowChoices(n: number, selected: number): number[] {
  const from = Math.max(0, n - MAX_CHOICES);
  const out: number[] = [];
  if (selected < from) out.push(selected);
  for (let i = n - 1; i >= from; i--) out.push(i);
  return out;
}

export function windowNumber(r: Result, i: number): number {
  return r.meta.window?.number ?? i + 1;
}

function download(name: string, type: string, text: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const VIEW_LABELS: Record<View, string> = { table: 'Table', chart: 'Chart', pivot: 'Pivot', json: 'JSON' };
const CHART_LABELS: Record<ChartType, string> = {
  lines: 'Lines over windows',
  bars: 'Bars',
  histogram: 'Histogram',
  cdf: 'CDF',
  quantile: 'Quantile curve',
};

export function Results(p: ResultsProps) {
  const { results } = p;
  const n = results.length;
  const live = p.w == null;
  // following live, an empty final result (the end of EVERY(1, RECORD)) leaves the last rows shown
  let index = live ? shownIndex(results) : n - 1;
  if (!live) {
    const i = results.findIndex((r, k) => windowNumber(r, k) === p.w);
    if (i >= 0) index = i;
  }
  const current = results[index];
  const emptyFinal = live && index < n - 1;
  // the shape of the latest results (reading every window again on each arrival would grow)
  const shape = useMemo(() => shapeOf(results.slice(-SHAPE_WINDOWS), p.keys), [p.version, p.keys?.join(',')]);
  const charts = chartsFor(shape);
  const chartType = (charts.includes(p.chart as ChartType) ? p.chart : charts[0]) as ChartType | undefined;
  const data = useMemo(
    () => (chartType && p.view === 'chart' ? chartData(results, index, shape, chartType, p.metric) : null),
    [p.version, index, chartType, p.view, p.metric, shape],
  );
  const canPivot = shape.kind === 'grouped' && shape.keys.length >= 2;
  const views = VIEWS.filter((v) => (v === 'chart' ? charts.length > 0 : v === 'pivot' ? canPivot : true));
  const view = views.includes(p.view) ? p.view : 'table';

  const Chart = useChart(view === 'chart');
  const [exportProblem, setExportProblem] = useState<string | null>(null);

  if (!current) return null;
  const wn = windowNumber(current, index);
  const go = (i: number) => p.onChange({ w: windowNumber(results[i], i) });
  const meta = current.meta;
  const stem = `spyglass-${meta.query?.id ?? 'result'}`;
  /** Every result the service keeps of the query, streamed by the service into a download. */
  const serverExport = (name: string, format: 'csv' | 'ndjson') => {
    setExportProblem(null);
    downloadExport(`/api/queries/${encodeURIComponent(p.exportId!)}/export?format=${format}`, name).catch((e) =>
      setExportProblem(plainError(e)),
    );
  };

  return (
    <section class="results" aria-label="Results">
      <div class="toolbar" role="toolbar" aria-label="Windows">
        <label>
          Window{' '}
          <select
            aria-label="Window"
            value={live ? 'live' : String(wn)}
            onChange={(e) => {
              const v = (e.target as HTMLSelectElement).value;
              p.onChange({ w: v === 'live' ? undefined : Number(v) });
            }}
          >
            <option value="live">{results[n - 1]?.meta.final ? 'Latest' : 'Latest (live)'}</option>
            {windowChoices(n, index).map((i) => (
              <option value={String(windowNumber(results[i], i))}>
                {windowNumber(results[i], i)}
                {results[i].meta.window ? ' · ' + new Date(results[i].meta.window!.emitTime).toLocaleTimeString() : ''}
                {results[i].meta.final ? ' · final' : ''}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={() => go(Math.max(0, index - 1))} disabled={index <= 0} aria-label="Earlier window" title="Earlier window ([)">
          ◀
        </button>
        <button type="button" onClick={() => go(Math.min(n - 1, index + 1))} disabled={index >= n - 1} aria-label="Later window" title="Later window (])">
          ▶
        </button>
        {live ? (
          <button type="button" onClick={() => go(index)} disabled={!!results[n - 1]?.meta.final}>
            Pause
          </button>
        ) : (
          <button type="button" class="primary" onClick={() => p.onChange({ w: undefined })}>
            Back to live{n - 1 > index ? ` (${n - 1 - index} newer)` : ''}
          </button>
        )}
        <span class="meta">
          {meta.window ? `window ${wn} of ${n}` : `result ${index + 1} of ${n}`}
          {p.describe?.(current) ? ` (${p.describe(current)})` : ''} · {current.records.length} row
          {current.records.length === 1 ? '' : 's'}
          {meta.sketch?.wasEstimated ? ' · estimated' : ''}
          {meta.final ? ' · final' : ''}
          {emptyFinal ? ' · the final result came without rows: the last rows are shown' : ''}
        </span>
      </div>
      {meta.errors?.map((e) => (
        <p class="error" role="alert">
          {e.fatal ? 'The query was stopped: ' : ''}
          {e.message}
          {e.resolution ? `. ${e.resolution}` : ''}
        </p>
      ))}
      <div class="toolbar">
        <div class="tabs" role="tablist" aria-label="View">
          {views.map((v) => (
            <button type="button" role="tab" aria-selected={v === view} class={v === view ? 'on' : ''} onClick={() => p.onChange({ view: v })}>
              {VIEW_LABELS[v]}
            </button>
          ))}
        </div>
        {view === 'chart' && charts.length > 1 && (
          <label>
            Chart{' '}
            <select aria-label="Chart" value={chartType} onChange={(e) => p.onChange({ chart: (e.target as HTMLSelectElement).value })}>
              {charts.map((c) => (
                <option value={c}>{CHART_LABELS[c]}</option>
              ))}
            </select>
          </label>
        )}
        {(view === 'pivot' || view === 'chart') && shape.kind === 'grouped' && shape.metrics.length > 1 && (
          <label>
            Metric{' '}
            <select aria-label="Metric" value={p.metric ?? shape.metrics[0]} onChange={(e) => p.onChange({ metric: (e.target as HTMLSelectElement).value })}>
              {shape.metrics.map((m) => (
                <option value={m}>{m}</option>
              ))}
            </select>
          </label>
        )}
        {view === 'chart' && logScaleFits(chartType) && (
          <label class="check">
            <input type="checkbox" checked={p.scale === 'log'} onChange={(e) => p.onChange({ scale: (e.target as HTMLInputElement).checked ? 'log' : undefined })} /> Log scale
          </label>
        )}
        <span class="spacer" />
        <div class="exports" role="group" aria-label="Export">
          <span class="label">Export</span>
          <button type="button" onClick={() => download(`${stem}-window-${wn}.csv`, 'text/csv', toCsv(current.records))}>
            CSV
          </button>
          <button
            type="button"
            onClick={() =>
              p.exportId ? serverExport(`${stem}-all.csv`, 'csv') : download(`${stem}-all.csv`, 'text/csv', windowsCsv(results))
            }
          >
            CSV, all windows
          </button>
          <button type="button" onClick={() => download(`${stem}-window-${wn}.json`, 'application/json', toJson(current))}>
            JSON
          </button>
          {p.exportId ? (
            <button type="button" onClick={() => serverExport(`${stem}-all.ndjson`, 'ndjson')}>
              NDJSON, all windows
            </button>
          ) : (
            <button type="button" onClick={() => download(`${stem}-all.json`, 'application/json', toJson(results))}>
              JSON, all windows
            </button>
          )}
        </div>
      </div>
      {exportProblem && (
        <p class="error" role="alert">
          {exportProblem}
        </p>
      )}
      {view === 'table' && <Table result={current} />}
      {view === 'json' && <pre class="json" aria-label="Result as JSON" tabIndex={0}>{JSON.stringify(current, null, 2)}</pre>}
      {view === 'chart' && data && Chart && (
        <Chart data={data} log={p.scale === 'log' && logScaleFits(chartType)} title={`${CHART_LABELS[chartType!]} of window ${wn}${p.scale === 'log' ? ', log scale' : ''}`} />
      )}
      {view === 'pivot' && shape.kind === 'grouped' && <PivotTable result={current} keys={shape.keys} metric={p.metric && shape.metrics.includes(p.metric) ? p.metric : shape.metrics[0]} />}
    </section>
  );
}

function Table({ result }: { result: Result }) {
  const [sort, setSort] = useState<{ col: string; dir: SortDir } | null>(null);
  const rows = result.records;
  const cols = columns(rows);
  const numeric = numericColumns(rows, cols);
  const sorted = useMemo(() => (sort && cols.includes(sort.col) ? sortRows(rows, sort.col, sort.dir) : rows), [rows, rows.length, sort?.col, sort?.dir]);
  if (!rows.length) return <p class="muted">This window has no rows.</p>;
  const shown = sorted.length > MAX_TABLE_ROWS ? sorted.slice(0, MAX_TABLE_ROWS) : sorted;
  const next = (c: string): { col: string; dir: SortDir } | null => {
    if (sort?.col !== c) return { col: c, dir: numeric.has(c) ? 'descending' : 'ascending' };
    if (sort.dir === (numeric.has(c) ? 'descending' : 'ascending')) return { col: c, dir: sort.dir === 'ascending' ? 'descending' : 'ascending' };
    return null; // the third click: back to the order the service sent
  };
  return (
    <div class="table-wrap" tabIndex={0} aria-label="Result table">
      <table class="data">
        <thead>
          <tr>
            {cols.map((c) => (
              <th scope="col" class={numeric.has(c) ? 'num' : ''} aria-sort={sort?.col === c ? sort.dir : 'none'}>
                <button type="button" class="sort" onClick={() => setSort(next(c))} title={`Sort by ${c}`}>
                  {c}
                  <span aria-hidden="true" class="arrow">
                    {sort?.col === c ? (sort.dir === 'ascending' ? ' ▲' : ' ▼') : ''}
                  </span>
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {shown.map((r) => (
            <tr>
              {cols.map((c) => {
                const v = r[c];
                if (numeric.has(c) && typeof v === 'number') {
                  const f = formatNumber(v);
                  return (
                    <td class="num" title={f === String(v) ? undefined : String(v)}>
                      {f}
                    </td>
                  );
                }
                return <td class={numeric.has(c) ? 'num' : ''}>{cell(v)}</td>;
              })}
            </tr>
          ))}
        </tbody>
      </table>
      {shown !== sorted && <p class="muted">Showing the first {MAX_TABLE_ROWS} of {rows.length} rows; the exports have them all.</p>}
    </div>
  );
}

function fmt(v: number | null): string {
  return v == null ? '' : formatNumber(v);
}

function PivotTable({ result, keys, metric }: { result: Result; keys: string[]; metric: string }) {
  const pv = pivot(result.records, keys, metric);
  if (!pv) return null;
  return (
    <div class="table-wrap" tabIndex={0} aria-label="Pivot table">
      <table class="data pivot">
        <caption>
          {metric} by {pv.rowKey} (down) and {pv.colKeys.join(' / ')} (across)
        </caption>
        <thead>
          <tr>
            <th scope="col">{pv.rowKey}</th>
            {pv.cols.map((c) => (
              <th scope="col">{c}</th>
            ))}
            <th scope="col">Total</th>
          </tr>
        </thead>
        <tbody>
          {pv.rows.map((r, i) => (
            <tr>
              <th scope="row">{r}</th>
              {pv.cells[i].map((v) => (
                <td class="num">{fmt(v)}</td>
              ))}
              <td class="num total">{fmt(pv.rowTotals[i])}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            {pv.colTotals.map((v) => (
              <td class="num total">{fmt(v)}</td>
            ))}
            <td class="num total">{fmt(pv.colTotals.reduce((a, b) => a + b, 0))}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
