/** A standing query's report (GET /api/standing-queries/{name}/results) as results, one per window. */
import type { Result, Row } from './types';

export interface StandingWindow {
  window: { start: number; end: number; final: boolean };
  records: Row[];
  meta?: { late?: number };
}

/** Each window as a result numbered from 1, oldest first, so that the query page's views show it. */
export function standingResults(windows: readonly StandingWindow[]): Result[] {
  return windows.map((w, i) => ({
    records: w.records,
    meta: {
      window: {
        number: i + 1,
        name: `${new Date(w.window.start).toISOString()} to ${new Date(w.window.end).toISOString()}`,
        emitTime: w.window.start,
        startTime: w.window.start,
        size: w.records.length,
      },
      final: w.window.final,
    },
  }));
}
