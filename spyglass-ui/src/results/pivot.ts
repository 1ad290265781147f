/** A pivot of a GROUP BY on two or more fields: the first key down, the others across. */
import { Row, cell, isNumber } from './types';

export interface Pivot {
  rowKey: string;
  colKeys: string[];
  metric: string;
  rows: string[];
  cols: string[];
  /** cells[row][col]: the metric, or null where no group has that pair. */
  cells: (number | null)[][];
  rowTotals: number[];
  colTotals: number[];
}

export function pivot(records: readonly Row[], keys: readonly string[], metric: string): Pivot | null {
  if (keys.length < 2) return null;
  const [rowKey, ...colKeys] = keys;
  const rowLabel = (r: Row) => cell(r[rowKey]) || '(null)';
  const colLabel = (r: Row) => colKeys.map((k) => cell(r[k]) || '(null)').join(' / ');
  const rows = [...new Set(records.map(rowLabel))].sort();
  const cols = [...new Set(records.map(colLabel))].sort();
  const ri = new Map(rows.map((r, i) => [r, i]));
  const ci = new Map(cols.map((c, i) => [c, i]));
  const cells: (number | null)[][] = rows.map(() => cols.map(() => null));
  for (const r of records) {
    const v = r[metric];
    if (!isNumber(v)) continue;
    const i = ri.get(rowLabel(r))!;
    const j = ci.get(colLabel(r))!;
    cells[i][j] = (cells[i][j] ?? 0) + v;
  }
  const rowTotals = cells.map((row) => row.reduce<number>((s, v) => s + (v ?? 0), 0));
  const colTotals = cols.map((_, j) => cells.reduce<number>((s, row) => s + (row[j] ?? 0), 0));
  return { rowKey, colKeys, metric, rows, cols, cells, rowTotals, colTotals };
}
