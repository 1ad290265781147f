/**
 * Reads BQL back into the builder when the query is simple enough for it, and otherwise says what
 * the builder cannot show. It reads only the shapes {@link toBql} writes (and their common
 * variants); whether a query is valid is the server's call.
 */
import {
  AggFn,
  Aggregate,
  Builder,
  DistFn,
  Filter,
  Literal,
  MAX_DURATION_MS,
  Op,
  Points,
  Window,
  emptyBuilder,
} from './builder';
import { LexError, Token, tokenize } from './lexer';

export type ReadResult = { ok: true; builder: Builder } | { ok: false; reasons: string[] };

class Unsupported extends Error {}

const AGG_FNS = ['COUNT', 'SUM', 'AVG', 'MIN', 'MAX'];
const DIST_FNS = ['QUANTILE', 'FREQ', 'CUMFREQ'];
const CLAUSES = ['FROM', 'WHERE', 'GROUP', 'HAVING', 'ORDER', 'WINDOWING', 'LIMIT', 'LATERAL'];

type Item =
  | { t: 'star' }
  | { t: 'field'; path: string }
  | { t: 'agg'; agg: Aggregate }
  | { t: 'countDistinct'; fields: string[]; alias: string }
  | { t: 'dist'; fn: DistFn; field: string; points: Points; args: number[] }
  | { t: 'top'; k: number; min: number | null; fields: string[]; alias: string };

class Reader {
  private i = 0;
  readonly reasons: string[] = [];

  constructor(private readonly toks: Token[]) {}

  private peek(n = 0): Token {
    return this.toks[Math.min(this.i + n, this.toks.length - 1)];
  }

  private is(word: string, n = 0): boolean {
    const t = this.peek(n);
    return (t.type === 'ident' && t.value.toUpperCase() === word) || ((t.type === 'punct' || t.type === 'op') && t.text === word);
  }

  private accept(word: string): boolean {
    if (this.is(word)) {
      this.i++;
      return true;
    }
    return false;
  }

  private expect(word: string): void {
    if (!this.accept(word)) this.fail(`expected ${word} at "${this.peek().text || 'the end'}"`);
  }

  private fail(reason: string): never {
    this.reasons.push(reason);
    throw new Unsupported(reason);
  }

  /** Skips to the next top-level clause after an item the builder cannot show. */
  private skipItem(): void {
    let depth = 0;
    for (;;) {
      const t = this.peek();
      if (t.type === 'eof') return;
      if (t.text === '(' || t.text === '[') depth++;
      if (t.text === ')' || t.text === ']') depth--;
      if (depth === 0 && (t.text === ',' || (t.type === 'ident' && CLAUSES.includes(t.value.toUpperCase())))) return;
      this.i++;
    }
  }

  private number(): number {
    let sign = 1;
    if (this.peek().text === '-') {
      sign = -1;
      this.i++;
    }
    const t = this.peek();
    if (t.type !== 'number') this.fail(`expected a number at "${t.text || 'the end'}"`);
    this.i++;
    return sign * parseFloat(t.value.replace(/[A-Za-z]+$/, ''));
  }

  private durationMs(): number {
    const t = this.peek();
    if (this.accept('MAX')) return MAX_DURATION_MS;
    if (t.type !== 'number') this.fail(`expected a duration at "${t.text || 'the end'}"`);
    this.i++;
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/i.exec(t.value);
    if (!m) this.fail(`cannot read the duration ${t.text}`);
    const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(m[2] ?? 'ms').toLowerCase() as 'ms'];
    return Math.min(MAX_DURATION_MS, Math.round(parseFloat(m[1]) * unit));
  }

  /** a, a.b, "x-y", m['k']: a field's path as /api/schema writes it. */
  private ref(): string {
    const t = this.peek();
    if (t.type !== 'ident' && t.type !== 'qident') this.fail(`expected a field at "${t.text || 'the end'}"`);
    this.i++;
    const parts = [t.value];
    for (;;) {
      if (this.is('.') && (this.peek(1).type === 'ident' || this.peek(1).type === 'qident')) {
        parts.push(this.peek(1).value);
        this.i += 2;
      } else if (this.is('[')) {
        const k = this.peek(1);
        if (k.type !== 'string' || this.peek(2).text !== ']') this.fail('a list index or computed key ([...])');
        parts.push(k.value);
        this.i += 3;
      } else if (this.is(':')) {
        this.fail('a type hint (x : TYPE)');
      } else {
        return parts.join('.');
      }
    }
  }

  private alias(): string {
    if (this.accept('AS')) {
      const t = this.peek();
      if (t.type !== 'ident' && t.type !== 'qident') this.fail('expected a name after AS');
      this.i++;
      return t.value;
    }
    const t = this.peek();
    if ((t.type === 'ident' && !CLAUSES.includes(t.value.toUpperCase())) || t.type === 'qident') {
      this.i++;
      return t.value;
    }
    return '';
  }

  private refs(): string[] {
    const out = [this.ref()];
    while (this.accept(',')) out.push(this.ref());
    return out;
  }

  private item(): Item {
    if (this.accept('*')) return { t: 'star' };
    const head = this.peek();
    const fn = head.type === 'ident' ? head.value.toUpperCase() : '';
    if (this.peek(1).text === '(' && (AGG_FNS.includes(fn) || DIST_FNS.includes(fn) || fn === 'TOP')) {
      this.i += 2;
      if (fn === 'COUNT' && this.accept('DISTINCT')) {
        const fields = this.refs();
        this.expect(')');
        return { t: 'countDistinct', fields, alias: this.alias() };
      }
      if (fn === 'COUNT') {
        this.expect('*');
        this.expect(')');
        return { t: 'agg', agg: { fn: 'COUNT', field: '', alias: this.alias() } };
      }
      if (AGG_FNS.includes(fn)) {
        const field = this.ref();
        this.expect(')');
        return { t: 'agg', agg: { fn: fn as AggFn, field, alias: this.alias() } };
      }
      if (DIST_FNS.includes(fn)) {
        const field = this.ref();
        this.expect(',');
        const p = this.peek().value.toUpperCase();
        if (!['LINEAR', 'REGION', 'MANUAL'].includes(p)) this.fail(`expected LINEAR, REGION or MANUAL at "${this.peek().text}"`);
        this.i++;
        const args: number[] = [];
        while (this.accept(',')) args.push(this.number());
        this.expect(')');
        if (this.alias()) this.fail(`a name for ${fn}(...)`);
        return { t: 'dist', fn: fn as DistFn, field, points: p as Points, args };
      }
      const k = this.number();
      this.expect(',');
      let min: number | null = null;
      if (this.peek().type === 'number') {
        min = this.number();
        this.expect(',');
      }
      const fields = this.refs();
      this.expect(')');
      return { t: 'top', k, min, fields, alias: this.alias() };
    }
    if (head.type === 'ident' || head.type === 'qident') {
      const path = this.ref();
      if (this.is(',') || this.is('FROM')) return { t: 'field', path };
      const alias = this.alias();
      if (alias && this.is(',')) this.fail(`a renamed field (${path} AS ${alias})`);
      if (alias && this.is('FROM')) this.fail(`a renamed field (${path} AS ${alias})`);
    }
    this.fail('an expression in SELECT');
  }

  private literal(): Literal {
    const t = this.peek();
    if (t.type === 'string') {
      this.i++;
      return { kind: 'string', text: t.value };
    }
    if (this.is('TRUE') || this.is('FALSE')) {
      this.i++;
      return { kind: 'boolean', text: t.value.toUpperCase() };
    }
    if (t.type === 'number' || t.text === '-') {
      const neg = t.text === '-' ? '-' : '';
      if (neg) this.i++;
      const n = this.peek();
      if (n.type !== 'number') this.fail('an expression as a value');
      this.i++;
      return { kind: 'number', text: neg + n.text };
    }
    this.fail(`a value that is not a constant (${t.text || 'the end'})`);
  }

  private filter(): Filter {
    if (this.is('(')) this.fail('parentheses in WHERE');
    if (this.is('NOT')) this.fail('NOT in WHERE');
    const field = this.ref();
    if (this.accept('IS')) {
      const not = this.accept('NOT');
      this.expect('NULL');
      return { field, op: not ? 'IS NOT NULL' : 'IS NULL', values: [] };
    }
    const not = this.accept('NOT');
    if (this.accept('IN')) {
      this.expect('(');
      const values = [this.literal()];
      while (this.accept(',')) values.push(this.literal());
      this.expect(')');
      return { field, op: not ? 'NOT IN' : 'IN', values };
    }
    if (this.accept('RLIKE')) {
      if (this.is('ANY')) this.fail('RLIKE ANY');
      return { field, op: not ? 'NOT RLIKE' : 'RLIKE', values: [this.literal()] };
    }
    if (not) this.fail(`NOT ${this.peek().text} in WHERE`);
    const t = this.peek();
    const ops: Record<string, Op> = { '=': '=', '==': '=', '!=': '!=', '<>': '!=', '<': '<', '<=': '<=', '>': '>', '>=': '>=' };
    if (t.type !== 'op' || !(t.text in ops)) this.fail(`the condition "${t.text || 'the end'}" in WHERE`);
    this.i++;
    if (this.is('ANY') || this.is('ALL')) this.fail(`${this.peek().text} comparisons`);
    return { field, op: ops[t.text], values: [this.literal()] };
  }

  private window(): Window {
    const old = this.accept('(');
    const w = this.peek().value.toUpperCase();
    if (w !== 'TUMBLING' && w !== 'EVERY') this.fail(`the window ${this.peek().text}`);
    this.i++;
    if (!old) this.expect('(');
    else this.expect(',');
    const ms = this.durationMs();
    this.expect(',');
    if (!this.accept('TIME')) this.fail('a RECORD window');
    if (w === 'TUMBLING') {
      this.expect(')');
      return { type: 'tumbling', ms };
    }
    this.expect(',');
    if (!this.accept('ALL')) this.fail('a sliding window (EVERY ... FIRST ...)');
    this.expect(')');
    return { type: 'additive', ms };
  }

  read(): Builder {
    const b = emptyBuilder();
    b.limit = null;
    b.aggregates = [];
    this.expect('SELECT');
    if (this.is('DISTINCT')) this.fail('SELECT DISTINCT');
    const items: Item[] = [];
    do {
      try {
        items.push(this.item());
      } catch (e) {
        if (!(e instanceof Unsupported)) throw e;
        this.skipItem();
      }
    } while (this.accept(','));
    this.expect('FROM');
    if (this.is('(')) this.fail('a query over a query (FROM (...))');
    this.expect('STREAM');
    this.expect('(');
    if (!this.accept(')')) {
      b.durationMs = this.durationMs();
      this.expect(',');
      this.expect('TIME');
      this.expect(')');
    }
    if (this.is('LATERAL')) this.fail('LATERAL VIEW');
    if (this.accept('WHERE')) {
      do b.filters.push(this.filter());
      while (this.accept('AND'));
      if (this.is('OR') || this.is('XOR')) this.fail(`${this.peek().value.toUpperCase()} in WHERE`);
    }
    let groupBy: string[] | null = null;
    if (this.accept('GROUP')) {
      this.expect('BY');
      if (this.is('(')) this.fail('GROUP BY ()');
      groupBy = this.refs();
    }
    if (this.is('HAVING')) this.fail('HAVING');
    if (this.is('ORDER')) this.fail('ORDER BY');
    if (this.accept('WINDOWING')) b.window = this.window();
    if (this.accept('LIMIT')) b.limit = this.number();
    this.accept(';');
    if (this.peek().type !== 'eof') this.fail(`"${this.peek().text}" after the query`);
    this.classify(b, items, groupBy);
    return b;
  }

  private classify(b: Builder, items: Item[], groupBy: string[] | null): void {
    const only = (t: Item['t'], what: string) => {
      if (items.some((i) => i.t === t) && items.length > 1) this.fail(`${what} beside other columns`);
    };
    only('countDistinct', 'COUNT(DISTINCT ...)');
    only('dist', 'a distribution');
    only('top', 'TOP');
    const first = items[0];
    if (!first) this.fail('an empty SELECT');
    if (first.t === 'countDistinct') {
      Object.assign(b, { kind: 'countDistinct', fields: first.fields, alias: first.alias });
    } else if (first.t === 'dist') {
      Object.assign(b, { kind: 'distribution', distribution: { fn: first.fn, field: first.field, points: first.points, args: first.args } });
    } else if (first.t === 'top') {
      Object.assign(b, { kind: 'top', topK: first.k, topMinCount: first.min, fields: first.fields, alias: first.alias });
    } else if (items.some((i) => i.t === 'agg')) {
      const keys = items.filter((i): i is { t: 'field'; path: string } => i.t === 'field').map((i) => i.path);
      if (items.some((i) => i.t === 'star')) this.fail('* beside aggregates');
      const expected = groupBy ?? [];
      if (keys.join('\n') !== expected.join('\n')) this.fail('selected fields that differ from the GROUP BY fields');
      const aggs = items.filter((i): i is { t: 'agg'; agg: Aggregate } => i.t === 'agg');
      if (items.findIndex((i) => i.t === 'agg') < keys.length) this.fail('aggregates before the grouped fields');
      b.kind = 'group';
      b.fields = keys;
      b.aggregates = aggs.map((a) => a.agg);
    } else {
      if (groupBy) this.fail('GROUP BY without aggregates');
      const star = items.some((i) => i.t === 'star');
      if (star && items.length > 1) this.fail('* beside other columns');
      b.kind = 'raw';
      b.fields = star ? [] : items.map((i) => (i as { path: string }).path);
    }
    if (groupBy && b.kind !== 'group') this.fail(`GROUP BY with ${b.kind === 'top' ? 'TOP' : 'this aggregation'}`);
  }
}

/** The builder for a query, or the reasons it cannot show it. */
export function readBuilder(text: string): ReadResult {
  let toks: Token[];
  try {
    toks = tokenize(text);
  } catch (e) {
    if (e instanceof LexError) return { ok: false, reasons: [e.message] };
    throw e;
  }
  const r = new Reader(toks);
  try {
    const b = r.read();
    if (r.reasons.length) return { ok: false, reasons: r.reasons };
    return { ok: true, builder: b };
  } catch (e) {
    if (e instanceof Unsupported) return { ok: false, reasons: r.reasons };
    throw e;
  }
}
