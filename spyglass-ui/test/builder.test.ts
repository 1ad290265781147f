import { describe, expect, it } from 'vitest';
import { Builder, emptyBuilder, fieldRef, literalFor, operatorsFor, toBql } from '../src/bql/builder';
import { readBuilder } from '../src/bql/reader';

function b(over: Partial<Builder>): Builder {
  return { ...emptyBuilder(), ...over };
}

function roundTrip(q: string): string {
  const r = readBuilder(q);
  if (!r.ok) throw new Error(r.reasons.join('; '));
  return toBql(r.builder);
}

describe('builder writes BQL', () => {
  it('raw records with filters, a window and a limit', () => {
    const q = toBql(
      b({
        fields: ['id', 'demographics.country', 'browser-id'],
        filters: [
          { field: 'status', op: '>=', values: [{ kind: 'number', text: '500' }] },
          { field: 'device', op: 'IN', values: [{ kind: 'string', text: 'mobile' }, { kind: 'string', text: "it's" }] },
          { field: 'referrer', op: 'IS NOT NULL', values: [] },
        ],
        durationMs: 20_000,
        window: { type: 'tumbling', ms: 5000 },
        limit: 50,
      }),
    );
    expect(q).toBe(
      `SELECT id, demographics.country, "browser-id" FROM STREAM(20s, TIME) WHERE status >= 500 AND device IN ('mobile', 'it''s') AND referrer IS NOT NULL WINDOWING TUMBLING(5s, TIME) LIMIT 50`,
    );
  });

  it('select * when no field is picked', () => {
    expect(toBql(b({ limit: null }))).toBe('SELECT * FROM STREAM(30s, TIME)');
  });

  it('group by with aggregates', () => {
    const q = toBql(
      b({
        kind: 'group',
        fields: ['device', 'demographics.country'],
        aggregates: [
          { fn: 'COUNT', field: '', alias: 'n' },
          { fn: 'AVG', field: 'duration', alias: 'avgDuration' },
        ],
        window: { type: 'additive', ms: 60_000 },
        durationMs: 3_600_000,
        limit: null,
      }),
    );
    expect(q).toBe(
      'SELECT device, demographics.country, COUNT(*) AS n, AVG(duration) AS avgDuration FROM STREAM(1h, TIME) GROUP BY device, demographics.country WINDOWING EVERY(1m, TIME, ALL)',
    );
  });

  it('group all, count distinct, distributions and top k', () => {
    expect(toBql(b({ kind: 'group', fields: [], aggregates: [{ fn: 'SUM', field: 'revenue', alias: '' }], limit: null }))).toBe(
      'SELECT SUM(revenue) FROM STREAM(30s, TIME)',
    );
    expect(toBql(b({ kind: 'countDistinct', fields: ['ip_address'], alias: 'ips', durationMs: 1500 }))).toBe(
      'SELECT COUNT(DISTINCT ip_address) AS ips FROM STREAM(1500, TIME)',
    );
    expect(toBql(b({ kind: 'distribution', distribution: { fn: 'FREQ', field: 'duration', points: 'REGION', args: [0, 2000, 500] } }))).toBe(
      'SELECT FREQ(duration, REGION, 0, 2000, 500) FROM STREAM(30s, TIME)',
    );
    expect(toBql(b({ kind: 'top', topK: 5, topMinCount: 100, fields: ['demographics.country', 'browser_name'], alias: 'numEvents', durationMs: 86_400_000 }))).toBe(
      'SELECT TOP(5, 100, demographics.country, browser_name) AS numEvents FROM STREAM(MAX, TIME)',
    );
  });

  it('quotes names that are not plain', () => {
    expect(fieldRef('select')).toBe('"select"');
    expect(fieldRef('a.b-c')).toBe("a['b-c']");
    expect(fieldRef('3d')).toBe('3d');
    expect(fieldRef('x"y')).toBe('"x""y"');
  });

  it('offers operators by type and types literals', () => {
    expect(operatorsFor(['STRING'])).toEqual(['=', '!=', 'IN', 'NOT IN', 'RLIKE', 'NOT RLIKE', 'IS NULL', 'IS NOT NULL']);
    expect(operatorsFor(['LONG'])).toContain('>=');
    expect(operatorsFor(['LONG'])).not.toContain('RLIKE');
    expect(operatorsFor(['BOOLEAN'])).toEqual(['=', '!=', 'IS NULL', 'IS NOT NULL']);
    expect(literalFor('500', ['LONG'])).toEqual({ kind: 'number', text: '500' });
    expect(literalFor('500', ['STRING'])).toEqual({ kind: 'string', text: '500' });
    expect(literalFor('true', ['BOOLEAN'])).toEqual({ kind: 'boolean', text: 'TRUE' });
    expect(literalFor('mobile', [])).toEqual({ kind: 'string', text: 'mobile' });
  });
});

describe('builder reads BQL back', () => {
  it('round-trips what it writes', () => {
    for (const q of [
      'SELECT * FROM STREAM(30s, TIME)',
      `SELECT id, "browser-id" FROM STREAM(20s, TIME) WHERE status >= 500 AND device NOT IN ('a', 'b') AND x IS NULL AND name RLIKE 'c.*' WINDOWING TUMBLING(5s, TIME) LIMIT 50`,
      'SELECT device, COUNT(*) AS n, MAX(latency_ms) FROM STREAM(1h, TIME) GROUP BY device WINDOWING EVERY(1m, TIME, ALL) LIMIT 10',
      'SELECT COUNT(DISTINCT ip_address, device) AS ips FROM STREAM(1500, TIME)',
      'SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(5s, TIME)',
      'SELECT CUMFREQ(latency_ms, MANUAL, 50, 100, 500) FROM STREAM(MAX, TIME)',
      'SELECT TOP(500, 100, demographics.country, browser_name) AS numEvents FROM STREAM(10s, TIME) WHERE demographics.country IS NOT NULL',
      'SELECT COUNT(*) AS n FROM STREAM(30s, TIME) WHERE is_bot = FALSE AND score > -1.5',
    ]) {
      expect(roundTrip(q)).toBe(q);
    }
  });

  it('reads variants: lower case, durations in ms, STREAM(), the old window form, == and <>', () => {
    expect(roundTrip("select device, count(*) n from stream(20000, time) where a == 1 and b <> 'x' group by device windowing (tumbling, 5000, time) limit 50;")).toBe(
      "SELECT device, COUNT(*) AS n FROM STREAM(20s, TIME) WHERE a = 1 AND b != 'x' GROUP BY device WINDOWING TUMBLING(5s, TIME) LIMIT 50",
    );
    expect(roundTrip('SELECT COUNT(*) FROM STREAM()')).toBe('SELECT COUNT(*) FROM STREAM(30s, TIME)');
    expect(roundTrip("SELECT m['k-1'] FROM STREAM(1s, TIME)")).toBe("SELECT m['k-1'] FROM STREAM(1s, TIME)");
  });

  it('says what it cannot show', () => {
    const cases: [string, string][] = [
      ['SELECT a FROM STREAM(1s, TIME) WHERE a = 1 OR b = 2', 'OR in WHERE'],
      ['SELECT a + 1 AS b FROM STREAM(1s, TIME)', 'an expression in SELECT'],
      ['SELECT a AS b FROM STREAM(1s, TIME)', 'a renamed field (a AS b)'],
      ['SELECT a, COUNT(*) FROM STREAM(1s, TIME) GROUP BY a HAVING COUNT(*) > 1', 'HAVING'],
      ['SELECT a FROM STREAM(1s, TIME) ORDER BY a', 'ORDER BY'],
      ['SELECT DISTINCT a FROM STREAM(1s, TIME)', 'SELECT DISTINCT'],
      ['SELECT COUNT(*) FROM STREAM(1m, TIME) WINDOWING EVERY(1s, TIME, FIRST, 10s, TIME)', 'a sliding window (EVERY ... FIRST ...)'],
      ['SELECT a FROM STREAM(1m, TIME) WINDOWING TUMBLING(10, RECORD)', 'a RECORD window'],
      ['SELECT COUNT(*) FROM (SELECT a FROM STREAM(1s, TIME))', 'a query over a query (FROM (...))'],
      ['SELECT a FROM STREAM(1s, TIME) LATERAL VIEW EXPLODE(t) AS x', 'LATERAL VIEW'],
      ['SELECT tags[0] FROM STREAM(1s, TIME)', 'a list index or computed key ([...])'],
      ['SELECT a, COUNT(*) FROM STREAM(1s, TIME) GROUP BY b', 'selected fields that differ from the GROUP BY fields'],
      ["SELECT a FROM STREAM(1s, TIME) WHERE a = 'x", 'Unclosed string'],
    ];
    for (const [q, reason] of cases) {
      const r = readBuilder(q);
      expect(r.ok, q).toBe(false);
      if (!r.ok) expect(r.reasons, q).toContain(reason);
    }
  });

  it('lists every item it cannot show in SELECT', () => {
    const r = readBuilder('SELECT a + 1, UPPER(b), c FROM STREAM(1s, TIME)');
    expect(r).toEqual({ ok: false, reasons: ['an expression in SELECT', 'an expression in SELECT'] });
  });
});
