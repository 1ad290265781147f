/** The result table's numbers and order: formatted as the pivot does, sorted by a column. */
import { Row, isNumber } from './types';

export type SortDir = 'ascending' | 'descending';

/** 275,583 and 108,416.399: grouped digits, at most 3 decimals (the exports keep the full value). */
export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  return Number.isInteger(v) ? v.toLocaleString() : v.toLocaleString(undefined, { maximumFractionDigits: 3 });
}

/** The columns holding only numbers (or nothing). */
export function numericColumns(rows: readonly Row[], cols: readonly string[]): Set<string> {
  return new Set(cols.filter((c) => rows.some((r) => isNumber(r[c])) && rows.every((r) => r[c] == null || typeof r[c] === 'number')));
}

/** The rows sorted by a column: numbers by value, text by its words; empty cells last either way. */
export function sortRows(rows: readonly Row[], col: string, dir: SortDir): Row[] {
  const sign = dir === 'ascending' ? 1 : -1;
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
  return rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      const x = a.r[col];
      const y = b.r[col];
      const xe = x == null;
      const ye = y == null;
      if (xe || ye) return xe === ye ? a.i - b.i : xe ? 1 : -1;
      let c: number;
      if (typeof x === 'number' && typeof y === 'number') c = x - y;
      else c = collator.compare(typeof x === 'object' ? JSON.stringify(x) : String(x), typeof y === 'object' ? JSON.stringify(y) : String(y));
      return c !== 0 ? sign * c : a.i - b.i;
    })
    .map((e) => e.r);
}

/**
 * Which result to show while following the latest: the latest, unless it is a final result
 * without rows after results with rows (EVERY(1, RECORD) ends so): then the last with rows.
 */
export function shownIndex(results: readonly { records: readonly unknown[]; meta: { final?: boolean } }[]): number {
  const n = results.length;
  const last = results[n - 1];
  if (!last || !last.meta.final || last.records.length > 0) return n - 1;
  for (let i = n - 2; i >= 0; i--) if (results[i].records.length > 0) return i;
  return n - 1;
}
