/**
 * The query builder's model and how it writes BQL. {@link readBuilder} (reader.ts) goes the other
 * way for the queries this model can show.
 */

export type Kind = 'raw' | 'group' | 'countDistinct' | 'distribution' | 'top';
export type AggFn = 'COUNT' | 'SUM' | 'AVG' | 'MIN' | 'MAX';
export type DistFn = 'QUANTILE' | 'FREQ' | 'CUMFREQ';
export type Points = 'LINEAR' | 'REGION' | 'MANUAL';
export type Op =
  | '='
  | '!='
  | '<'
  | '<='
  | '>'
  | '>='
  | 'IN'
  | 'NOT IN'
  | 'RLIKE'
  | 'NOT RLIKE'
  | 'IS NULL'
  | 'IS NOT NULL';

/** A literal as written: a string is quoted, a number and a boolean are not. */
export interface Literal {
  kind: 'string' | 'number' | 'boolean';
  text: string;
}

export interface Filter {
  field: string;
  op: Op;
  /** One value for comparisons, several for IN, none for IS NULL. */
  values: Literal[];
}

export interface Aggregate {
  fn: AggFn;
  /** The field; empty for COUNT(*). */
  field: string;
  /** The column's name; empty writes no AS. */
  alias: string;
}

export type Window = { type: 'none' } | { type: 'tumbling' | 'additive'; ms: number };

export interface Builder {
  kind: Kind;
  /** raw: projected fields (none is *); group: the keys; countDistinct and top: the fields. */
  fields: string[];
  /** group: COUNT(*), SUM(x) ... */
  aggregates: Aggregate[];
  filters: Filter[];
  distribution: { fn: DistFn; field: string; points: Points; args: number[] };
  topK: number;
  topMinCount: number | null;
  /** countDistinct and top: the count column's name; empty writes no AS. */
  alias: string;
  durationMs: number;
  window: Window;
  /** raw and group only; null writes no LIMIT. */
  limit: number | null;
}

export const MAX_DURATION_MS = 24 * 3600 * 1000;

export function emptyBuilder(): Builder {
  return {
    kind: 'raw',
    fields: [],
    aggregates: [{ fn: 'COUNT', field: '', alias: 'n' }],
    filters: [],
    distribution: { fn: 'QUANTILE', field: '', points: 'LINEAR', args: [11] },
    topK: 10,
    topMinCount: null,
    alias: '',
    durationMs: 30_000,
    window: { type: 'none' },
    limit: 10,
  };
}

/** Operators offered for a field of these types (from /api/schema). */
export function operatorsFor(types: readonly string[]): Op[] {
  const isNum = types.some((t) => ['LONG', 'DOUBLE', 'INTEGER', 'FLOAT'].includes(t));
  const isStr = types.includes('STRING');
  const isBool = types.includes('BOOLEAN');
  const ops: Op[] = ['='];
  ops.push('!=');
  if (isNum || types.length === 0) ops.push('<', '<=', '>', '>=');
  if (isNum || isStr || types.length === 0) ops.push('IN', 'NOT IN');
  if (isStr || types.length === 0) ops.push('RLIKE', 'NOT RLIKE');
  if (isBool && !isNum && !isStr) ops.splice(ops.indexOf('!=') + 1);
  ops.push('IS NULL', 'IS NOT NULL');
  return ops;
}

/** A literal from what a person typed, knowing the field's types when the schema has them. */
export function literalFor(text: string, types: readonly string[]): Literal {
  const t = text.trim();
  const numeric = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t);
  if (types.includes('STRING') && !types.some((x) => x === 'LONG' || x === 'DOUBLE')) {
    return { kind: 'string', text: t };
  }
  if (numeric && (types.length === 0 || types.some((x) => x === 'LONG' || x === 'DOUBLE'))) {
    return { kind: 'number', text: t };
  }
  if (/^(true|false)$/i.test(t) && (types.length === 0 || types.includes('BOOLEAN'))) {
    return { kind: 'boolean', text: t.toUpperCase() };
  }
  return { kind: 'string', text: t };
}

/** Words that must be written in double quotes when used as a field name. */
const RESERVED = new Set(
  ('SELECT DISTINCT FROM WHERE AND OR XOR NOT IS NULL TRUE FALSE IN BETWEEN RLIKE AS GROUP BY HAVING ' +
    'ORDER LIMIT OUTER CAST SIZEOF NOW').split(' '),
);

function name(part: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(part) && !RESERVED.has(part.toUpperCase())) return part;
  if (/^[0-9][A-Za-z0-9_]*$/.test(part) && !/^[0-9]+$/.test(part)) return part;
  return '"' + part.replace(/"/g, '""') + '"';
}

function quote(s: string): string {
  return "'" + s.replace(/'/g, "''") + "'";
}

/** A field's path (a.b.c, as /api/schema writes it) as BQL: plain, quoted or with ['key']. */
export function fieldRef(path: string): string {
  const parts = path.split('.');
  return parts
    .map((p, i) => {
      if (i === 0) return name(p);
      return /^[A-Za-z_][A-Za-z0-9_]*$/.test(p) && !RESERVED.has(p.toUpperCase()) ? '.' + p : '[' + quote(p) + ']';
    })
    .join('');
}

export function literal(l: Literal): string {
  return l.kind === 'string' ? quote(l.text) : l.text;
}

/** Milliseconds as BQL writes durations: 30s, 5m, 1h, or 1500. */
export function duration(ms: number): string {
  if (ms >= MAX_DURATION_MS) return 'MAX';
  if (ms % 3_600_000 === 0) return ms / 3_600_000 + 'h';
  if (ms % 60_000 === 0) return ms / 60_000 + 'm';
  if (ms % 1000 === 0) return ms / 1000 + 's';
  return String(ms);
}

function filterBql(f: Filter): string {
  const ref = fieldRef(f.field);
  switch (f.op) {
    case 'IS NULL':
    case 'IS NOT NULL':
      return `${ref} ${f.op}`;
    case 'IN':
    case 'NOT IN':
      return `${ref} ${f.op} (${f.values.map(literal).join(', ')})`;
    default:
      return `${ref} ${f.op} ${f.values.length ? literal(f.values[0]) : "''"}`;
  }
}

function as(alias: string): string {
  return alias ? ' AS ' + name(alias) : '';
}

/** The builder's query as BQL, on one line. */
export function toBql(b: Builder): string {
  let select: string;
  let groupBy = '';
  switch (b.kind) {
    case 'raw':
      select = b.fields.length ? b.fields.map(fieldRef).join(', ') : '*';
      break;
    case 'group': {
      const aggs = b.aggregates.filter((a) => a.fn === 'COUNT' || a.field).map((a) => `${a.fn}(${a.field ? fieldRef(a.field) : '*'})${as(a.alias)}`);
      select = [...b.fields.map(fieldRef), ...aggs].join(', ') || 'COUNT(*)';
      if (b.fields.length) groupBy = ' GROUP BY ' + b.fields.map(fieldRef).join(', ');
      break;
    }
    case 'countDistinct':
      select = `COUNT(DISTINCT ${b.fields.map(fieldRef).join(', ') || '*'})${as(b.alias)}`;
      break;
    case 'distribution': {
      const d = b.distribution;
      select = `${d.fn}(${fieldRef(d.field || 'value')}, ${d.points}, ${d.args.join(', ')})`;
      break;
    }
    case 'top': {
      const head = b.topMinCount != null ? `${b.topK}, ${b.topMinCount}` : `${b.topK}`;
      select = `TOP(${head}, ${b.fields.map(fieldRef).join(', ')})${as(b.alias)}`;
      break;
    }
  }
  let q = `SELECT ${select} FROM STREAM(${duration(b.durationMs)}, TIME)`;
  const filters = b.filters.filter((f) => f.field && (f.op.startsWith('IS') || f.values.length));
  if (filters.length) q += ' WHERE ' + filters.map(filterBql).join(' AND ');
  q += groupBy;
  if (b.window.type === 'tumbling') q += ` WINDOWING TUMBLING(${duration(b.window.ms)}, TIME)`;
  if (b.window.type === 'additive') q += ` WINDOWING EVERY(${duration(b.window.ms)}, TIME, ALL)`;
  if (b.limit != null && (b.kind === 'raw' || b.kind === 'group')) q += ` LIMIT ${b.limit}`;
  return q;
}
