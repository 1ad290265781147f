/** A result, exactly as `spyglass query --format json` prints it (docs/results.md). */
export type Row = Record<string, unknown>;

export interface ResultError {
  message: string;
  resolution?: string;
  fatal?: boolean;
}

export interface Result {
  records: Row[];
  meta: {
    query?: { id?: string; text?: string; receiveTime?: number; finishTime?: number };
    window?: { number: number; name: string; emitTime: number; startTime: number; size: number };
    sketch?: Record<string, unknown>;
    errors?: ResultError[];
    final?: boolean;
  };
}

/** The columns of some rows: every key, in the order first seen. */
export function columns(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const r of rows) for (const k of Object.keys(r)) seen.add(k);
  return [...seen];
}

/** A value as a table cell shows it. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
