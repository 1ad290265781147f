/**
 * CSV (RFC 4180) and JSON of one result or of every window received. Text that a spreadsheet would
 * take for a formula (it starts with = + - @, a tab or a carriage return) is written with a ' in
 * front, as OWASP advises: stream data comes from third parties. Numbers stay numbers.
 */
import { Result, Row, cell, columns } from './types';

function csvField(s: string): string {
  return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
}

/** A text cell as a spreadsheet will read it as text: '=1+2, not a formula. */
export function defuse(s: string): string {
  return /^[=+\-@\t\r]/.test(s) ? "'" + s : s;
}

/** A value as a CSV cell: numbers as they are (-3 is a number), text defused. */
function csvCell(v: unknown): string {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : defuse(cell(v));
}

/** Rows as CSV: a header of every column, then one line per row; nested values as JSON. */
export function toCsv(rows: readonly Row[], cols: readonly string[] = columns(rows)): string {
  const lines = [cols.map((c) => csvField(defuse(c))).join(',')];
  for (const r of rows) lines.push(cols.map((c) => csvField(csvCell(r[c]))).join(','));
  return lines.join('\r\n') + '\r\n';
}

/** Every window's rows as one CSV, with the window's number first on each line. */
export function windowsCsv(results: readonly Result[]): string {
  const rows: Row[] = [];
  results.forEach((r, i) => {
    for (const rec of r.records) rows.push({ window: r.meta.window?.number ?? i + 1, ...rec });
  });
  const cols = columns(rows);
  return toCsv(rows, cols.length ? cols : ['window']);
}

export function toJson(value: Result | readonly Result[]): string {
  return JSON.stringify(value, null, 2) + '\n';
}

/** Parses CSV as {@link toCsv} writes it (quoted fields, doubled quotes, CRLF). */
export function parseCsv(text: string): string[][] {
  const out: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      out.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  if (field !== '' || row.length) {
    row.push(field);
    out.push(row);
  }
  return out;
}
