/**
 * Which chart a result's shape calls for, and the chart's data: a line per numeric column over
 * windows for one-row results (group all, COUNT DISTINCT); bars for GROUP BY and TOP K; a
 * histogram for FREQ, a CDF for CUMFREQ, the quantile curve for QUANTILE. Raw records have none.
 */
import { shortRange } from './axes';
import { Result, Row, cell, columns, isNumber } from './types';

export type ChartType = 'lines' | 'bars' | 'histogram' | 'cdf' | 'quantile';

export type Shape =
  | { kind: 'raw' }
  | { kind: 'single'; metrics: string[] }
  | { kind: 'grouped'; keys: string[]; metrics: string[] }
  | { kind: 'freq' | 'cumfreq' | 'quantile' };

export interface Series {
  name: string;
  values: (number | null)[];
}

export type ChartData =
  | { type: 'lines'; x: number[]; xLabel: string; series: Series[] }
  | {
      type: 'bars' | 'histogram';
      /** Each bar's name, in full (the legend shows it under the pointer). */
      categories: string[];
      /** Shorter names for the axis (a histogram's ranges as 10k–10.5k), when they differ. */
      short?: string[];
      categoryLabel: string;
      series: Series[];
    }
  | { type: 'cdf' | 'quantile'; x: number[]; xLabel: string; series: Series[] };

/**
 * The shape of a query's results. {@code keys} are the grouping columns when the query says
 * (GROUP BY fields, TOP fields), none (an empty list) when the query says it selects raw records;
 * otherwise (a query the page cannot read) the columns that hold text are taken as keys.
 */
export function shapeOf(results: readonly Result[], keys?: readonly string[]): Shape {
  const rows: Row[] = results.flatMap((r) => r.records);
  const cols = columns(rows);
  if (cols.length === 0 || (keys && keys.length === 0)) return { kind: 'raw' };
  const has = (...names: string[]) => names.every((n) => cols.includes(n));
  if (cols.length === 2 && has('Quantile', 'Value')) return { kind: 'quantile' };
  if (cols.length === 3 && has('Range', 'Count', 'Probability')) {
    const cumulative = rows.every((r) => String(r.Range).startsWith('(-∞ to'));
    return { kind: cumulative && rows.length > 0 ? 'cumfreq' : 'freq' };
  }
  const numeric = cols.filter((c) => rows.some((r) => isNumber(r[c])) && rows.every((r) => r[c] == null || isNumber(r[c])));
  if (keys && keys.length) {
    const k = keys.filter((c) => cols.includes(c));
    const metrics = numeric.filter((c) => !k.includes(c));
    if (k.length && metrics.length) return { kind: 'grouped', keys: k, metrics };
  }
  const oneRowEach = results.every((r) => r.records.length <= 1);
  if (oneRowEach && numeric.length === cols.length) return { kind: 'single', metrics: numeric };
  const textKeys = cols.filter((c) => !numeric.includes(c));
  if (numeric.length && textKeys.length && textKeys.every((c) => rows.every((r) => r[c] == null || typeof r[c] !== 'object'))) {
    // many rows with text columns and numbers: a grouping, unless it looks like raw records
    if (!keys && textKeys.length + numeric.length > 8) return { kind: 'raw' };
    return { kind: 'grouped', keys: textKeys, metrics: numeric };
  }
  return { kind: 'raw' };
}

/** Whether a chart may be drawn on a log scale (long-tailed values: a quantile curve, a histogram's counts). */
export function logScaleFits(type: ChartType | undefined): boolean {
  return type === 'histogram' || type === 'quantile';
}

/** The charts that suit a shape, the first being the one shown unless another is chosen. */
export function chartsFor(shape: Shape): ChartType[] {
  switch (shape.kind) {
    case 'single':
      return ['lines', 'bars'];
    case 'grouped':
      return ['bars', 'lines'];
    case 'freq':
      return ['histogram', 'cdf'];
    case 'cumfreq':
      return ['cdf'];
    case 'quantile':
      return ['quantile'];
    default:
      return [];
  }
}

function num(v: unknown): number | null {
  return isNumber(v) ? v : null;
}

function upperBound(range: string): number {
  const m = /to ([-+]?∞|[-+0-9.eE]+)\)?$/.exec(range);
  if (!m) return NaN;
  if (m[1].includes('∞')) return m[1].startsWith('-') ? -Infinity : Infinity;
  return parseFloat(m[1]);
}

/** The most categories a bar chart or a line-per-group chart shows. */
export const MAX_CATEGORIES = 50;
const MAX_GROUP_LINES = 10;

/**
 * The data of a chart of the given type for the selected result (index into results), or null
 * when the shape has no such chart. {@code metric} picks the column a grouped result's chart shows (the first by default).
 */
export function chartData(
  results: readonly Result[],
  selected: number,
  shape: Shape,
  type: ChartType,
  metric?: string,
): ChartData | null {
  if (!chartsFor(shape).includes(type)) return null;
  const res = results[selected];
  if (!res) return null;
  const rows = res.records;
  const windowNo = (r: Result, i: number) => r.meta.window?.number ?? i + 1;
  if (shape.kind === 'single') {
    if (type === 'lines') {
      return {
        type,
        x: results.map(windowNo),
        xLabel: 'window',
        series: shape.metrics.map((m) => ({ name: m, values: results.map((r) => num(r.records[0]?.[m])) })),
      };
    }
    return { type: 'bars', categories: shape.metrics, categoryLabel: 'column', series: [{ name: 'value', values: shape.metrics.map((m) => num(rows[0]?.[m])) }] };
  }
  if (shape.kind === 'grouped') {
    const label = (r: Row) => shape.keys.map((k) => cell(r[k]) || '(null)').join(' / ');
    const m = metric && shape.metrics.includes(metric) ? metric : shape.metrics[0];
    if (type === 'bars') {
      const shown = rows.slice(0, MAX_CATEGORIES);
      return { type, categories: shown.map(label), categoryLabel: shape.keys.join(' / '), series: [{ name: m, values: shown.map((r) => num(r[m])) }] };
    }
    const totals = new Map<string, number>();
    for (const r of results) for (const row of r.records) totals.set(label(row), (totals.get(label(row)) ?? 0) + (num(row[m]) ?? 0));
    const top = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, MAX_GROUP_LINES).map((e) => e[0]);
    return {
      type: 'lines',
      x: results.map(windowNo),
      xLabel: 'window',
      series: top.map((g) => ({
        name: `${g} ${m}`,
        values: results.map((r) => num(r.records.find((row) => label(row) === g)?.[m])),
      })),
    };
  }
  if (shape.kind === 'freq' && type === 'histogram') {
    const categories = rows.map((r) => String(r.Range));
    return { type, categories, short: categories.map(shortRange), categoryLabel: 'Range', series: [{ name: 'Count', values: rows.map((r) => num(r.Count)) }] };
  }
  if (shape.kind === 'freq' || shape.kind === 'cumfreq') {
    const finite = rows.filter((r) => Number.isFinite(upperBound(String(r.Range))));
    let sum = 0;
    const values = finite.map((r) => {
      if (shape.kind === 'cumfreq') return num(r.Probability);
      sum += num(r.Probability) ?? 0;
      return sum;
    });
    return { type: 'cdf', x: finite.map((r) => upperBound(String(r.Range))), xLabel: 'value', series: [{ name: 'Probability ≤ value', values }] };
  }
  if (shape.kind === 'quantile') {
    return { type: 'quantile', x: rows.map((r) => num(r.Quantile) ?? NaN), xLabel: 'quantile', series: [{ name: 'Value', values: rows.map((r) => num(r.Value)) }] };
  }
  return null;
}
