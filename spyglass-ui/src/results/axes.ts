/** Axis labels a person can read: whole window numbers, short bucket ranges, every n-th label. */

/** Steps between ticks of an axis of window numbers: whole numbers only (no window 1.25). */
export const WINDOW_INCRS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 1e6, 1e7];

const compactFormat = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 1 });

/** 10500 as 10.5k, 2000000 as 2M, 0.25 as 0.25: short enough for an axis. */
export function shortNumber(v: number): string {
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  if (Math.abs(v) >= 1000) return compactFormat.format(v).replace('K', 'k');
  return String(+v.toPrecision(3));
}

/**
 * A FREQ bucket's range as an axis shows it: "[10000.0 to 10500.0)" as "10k–10.5k", "(-∞ to
 * 0.0)" as "< 0", "[50000.0 to +∞)" as "≥ 50k". Text it cannot read stays as it is.
 */
export function shortRange(range: string): string {
  const m = /^([[(])\s*([-+]?∞|[-+0-9.eE]+)\s+to\s+([-+]?∞|[-+0-9.eE]+)\s*([\])])$/.exec(range.trim());
  if (!m) return range;
  const num = (s: string) => (s.includes('∞') ? (s.startsWith('-') ? -Infinity : Infinity) : parseFloat(s));
  const lo = num(m[2]);
  const hi = num(m[3]);
  if (lo === -Infinity) return `< ${shortNumber(hi)}`;
  if (hi === Infinity) return `≥ ${shortNumber(lo)}`;
  return `${shortNumber(lo)}–${shortNumber(hi)}`;
}

/** Every how many categories a label is drawn, so that labels of about {@code labelPx} do not overlap. */
export function labelStep(count: number, widthPx: number, labelPx = 64): number {
  const fits = Math.max(1, Math.floor(widthPx / labelPx));
  return Math.max(1, Math.ceil(count / fits));
}
