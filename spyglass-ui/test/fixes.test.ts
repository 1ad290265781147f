import { describe, expect, it } from 'vitest';
import { QueryInfo, finiteDuration } from '../src/api';
import { closeFields, errorRange, fieldRange, utf16Offset } from '../src/bql/language';
import { asStanding, isRawQuery, queryKeys } from '../src/bql/shape';
import { WINDOW_INCRS, labelStep, shortRange } from '../src/results/axes';
import { defuse, parseCsv, toCsv } from '../src/results/export';
import { progressText } from '../src/results/progress';
import { clientsText, filterQueries, isOrphan } from '../src/results/queries';
import { chartData, logScaleFits, shapeOf } from '../src/results/shape';
import { standingResults } from '../src/results/standing';
import { formatNumber, shownIndex, sortRows } from '../src/results/table';
import { Result, Row } from '../src/results/types';
import { formatRoute, parseRoute } from '../src/route';

const res = (records: Row[], final = false): Result => ({ records, meta: { final } });

describe('a query that runs until stopped (T2-06)', () => {
  const p = (durationMs: number | null | undefined) => ({ elapsedMs: 12_400, durationMs, recordsSeen: 6656, resultsEmitted: 3 });
  it('says how long it has run and "until stopped", with no fraction, whatever the service sent', () => {
    for (const d of [null, undefined, 9223372036854775807, -1]) {
      expect(progressText({ running: true, progress: p(d), ended: 'ended', results: 3 })).toEqual({
        text: 'running for 12 s · until stopped · 6,656 records seen · 3 results',
        percent: null,
      });
    }
    expect(finiteDuration(9223372036854775807)).toBeNull();
    expect(finiteDuration(-1)).toBeNull();
  });
  it('a query with a duration says the time left and fills its bar', () => {
    expect(progressText({ running: true, progress: p(60_000), ended: 'ended', results: 3 })).toEqual({ text: '48 s left · 6,656 records seen · 3 results', percent: (12_400 / 60_000) * 100 });
    expect(progressText({ running: false, progress: p(60_000), ended: 'finished', results: 1 }).text).toBe('finished · 6,656 records seen · 1 result');
    expect(progressText({ running: true, progress: null, plannedMs: -1, ended: 'ended', results: 0 })).toEqual({ text: 'running · 0 results', percent: null });
  });
});

describe('CSV export of formulas (SEC-15, T2-22)', () => {
  it("prefixes text starting with = + - @ tab or CR with ', and leaves numbers as numbers", () => {
    const rows = [{ s: '=HYPERLINK("http://evil.example","click")', t: '+1', u: '-x', v: '@SUM(1+1)', w: '\tz', x: '\rz', n: -3, ok: 'a=b' }];
    const csv = parseCsv(toCsv(rows));
    expect(csv[1]).toEqual(["'=HYPERLINK(\"http://evil.example\",\"click\")", "'+1", "'-x", "'@SUM(1+1)", "'\tz", "'\rz", '-3', 'a=b']);
    expect(defuse('-3')).toBe("'-3"); // text that looks like a number is still text
    expect(parseCsv(toCsv([{ '=h': 1 }]))[0]).toEqual(["'=h"]);
  });
});

describe('error offsets in code points (T2-08)', () => {
  it('underlines FOO after emoji, which take two UTF-16 units each', () => {
    const doc = "SELECT '🚀🚀🚀' AS x, FOO(1) FROM STREAM(1s, TIME)";
    const r = errorRange(doc, { line: 1, column: 20, message: 'Unknown function FOO', start: 19, end: 22 });
    expect(doc.slice(r.from, r.to)).toBe('FOO');
    const byColumn = errorRange(doc, { line: 1, column: 20, message: 'x' });
    expect(doc.slice(byColumn.from, byColumn.to)).toBe('FOO');
    expect(utf16Offset('ab', 5)).toBe(2);
    const plain = "SELECT 'ünï' AS x, FOO(1)";
    const p = errorRange(plain, { line: 1, column: 20, message: 'x', start: 19, end: 22 });
    expect(plain.slice(p.from, p.to)).toBe('FOO');
  });
});

describe('the result table (T2-11)', () => {
  it('formats numbers as the pivot does', () => {
    expect(formatNumber(108416.3991550545)).toBe((108416.399).toLocaleString(undefined, { maximumFractionDigits: 3 }));
    expect(formatNumber(275583)).toBe((275583).toLocaleString());
  });
  it('sorts by a column: numbers by value, text by words, empty cells last', () => {
    const rows = [{ d: 'tablet', n: 5 }, { d: 'smart_tv', n: 260259 }, { d: null, n: null }, { d: 'vr', n: 40 }];
    expect(sortRows(rows, 'n', 'descending').map((r) => r.n)).toEqual([260259, 40, 5, null]);
    expect(sortRows(rows, 'n', 'ascending').map((r) => r.n)).toEqual([5, 40, 260259, null]);
    expect(sortRows(rows, 'd', 'ascending').map((r) => r.d)).toEqual(['smart_tv', 'tablet', 'vr', null]);
  });
});

describe('chart axes (T2-12, T2-13)', () => {
  it('window numbers step by whole numbers', () => {
    expect(WINDOW_INCRS.every((i) => Number.isInteger(i) && i >= 1)).toBe(true);
  });
  it('FREQ ranges are short on the axis, in full in the legend, one label every few bars', () => {
    expect(shortRange('[10000.0 to 10500.0)')).toBe('10k–10.5k');
    expect(shortRange('(-∞ to 2000.0)')).toBe('< 2k');
    expect(shortRange('[20000.0 to +∞)')).toBe('≥ 20k');
    expect(shortRange('[0.25 to 0.5)')).toBe('0.25–0.5');
    expect(labelStep(38, 1200, 72)).toBe(3);
    expect(labelStep(38, 340, 72)).toBe(10);
    expect(labelStep(5, 1200)).toBe(1);
    const freq = [res([{ Range: '[10000.0 to 10500.0)', Count: 3, Probability: 0.5 }, { Range: '[10500.0 to 11000.0)', Count: 3, Probability: 0.5 }])];
    expect(chartData(freq, 0, shapeOf(freq), 'histogram')).toMatchObject({ categories: ['[10000.0 to 10500.0)', '[10500.0 to 11000.0)'], short: ['10k–10.5k', '10.5k–11k'] });
    expect(logScaleFits('quantile')).toBe(true);
    expect(logScaleFits('histogram')).toBe(true);
    expect(logScaleFits('lines')).toBe(false);
  });
});

describe('raw records decided from the query (T2-14)', () => {
  it('no aggregate and no GROUP BY: raw, whatever the window', () => {
    const q = 'SELECT id, device, status, duration, browser_name FROM STREAM(3s, TIME) WHERE status >= 500 WINDOWING EVERY(1, RECORD, FIRST, 1, RECORD)';
    expect(isRawQuery(q)).toBe(true);
    expect(queryKeys(q)).toEqual([]);
    expect(shapeOf([res([{ id: 'a', device: 'tv', status: 500, duration: 3, browser_name: 'x' }])], queryKeys(q))).toEqual({ kind: 'raw' });
    expect(isRawQuery('SELECT device, COUNT(*) AS n FROM STREAM(3s, TIME) GROUP BY device')).toBe(false);
    expect(isRawQuery('SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(3s, TIME)')).toBe(false);
    expect(isRawQuery('SELECT TOP(3, a) FROM STREAM(3s, TIME)')).toBe(false);
    expect(isRawQuery('SELECT DISTINCT a FROM STREAM(3s, TIME)')).toBe(false);
    expect(isRawQuery('SELECT IF(a > 1, 2, 3) AS x, max FROM STREAM(3s, TIME)')).toBe(true);
    expect(isRawQuery('SELECT')).toBe(false);
  });
});

describe('an empty final window (T2-15)', () => {
  it('while following, the last rows stay shown', () => {
    expect(shownIndex([res([{ a: 1 }]), res([{ a: 2 }]), res([], true)])).toBe(1);
    expect(shownIndex([res([{ a: 1 }]), res([{ a: 2 }], true)])).toBe(1);
    expect(shownIndex([res([]), res([], true)])).toBe(1);
    expect(shownIndex([res([{ a: 1 }]), res([])])).toBe(1); // not final: it is the live window
  });
});

describe('the Running page filter (T2-26)', () => {
  it('keeps the queries whose text, owner or id hold every word', () => {
    const q = (id: string, owner: string, query: string) => ({ id, owner, query, state: 'running' }) as QueryInfo;
    const all = [q('a1', 'ann', 'SELECT COUNT(*) FROM STREAM(60s, TIME)'), q('b2', 'bob', 'SELECT device FROM STREAM(10s, TIME)')];
    expect(filterQueries(all, '').map((x) => x.id)).toEqual(['a1', 'b2']);
    expect(filterQueries(all, 'count ann').map((x) => x.id)).toEqual(['a1']);
    expect(filterQueries(all, 'B2').map((x) => x.id)).toEqual(['b2']);
    expect(filterQueries(all, 'nothing')).toEqual([]);
  });
});

describe('the Running page: orphans and who stopped what', () => {
  const base = { id: 'o1', owner: 'ann', query: 'SELECT * FROM STREAM(FOREVER)', progress: { elapsedMs: 0, durationMs: null, recordsSeen: 0, resultsEmitted: 0 } };
  it('says who reads a query, and when an orphan ends unless a client reattaches', () => {
    const now = 1_000_000;
    const reading = { ...base, state: 'running', clients: 2, orphanedSince: null, endsAt: null } as QueryInfo;
    expect(isOrphan(reading)).toBe(false);
    expect(clientsText(reading, now)).toBe('2 clients');
    const orphan = { ...base, state: 'running', clients: 0, orphanedSince: now - 12_000, endsAt: now + 48_000 } as QueryInfo;
    expect(isOrphan(orphan)).toBe(true);
    expect(clientsText(orphan, now)).toBe('no client for 12\u00a0s · ends in 48\u00a0s unless one reattaches');
    const detached = { ...orphan, detached: true, endsAt: null } as QueryInfo;
    expect(clientsText(detached, now)).toBe('no client for 12\u00a0s · detached: runs to its end');
    expect(filterQueries([reading, { ...orphan, id: 'o2' }], 'orphan').map((x) => x.id)).toEqual(['o2']);
  });
  it('says who stopped an ended query', () => {
    const ended = (reason: string, by: string) => ({ ...base, state: 'stopped', stoppedBy: { reason, by } }) as QueryInfo;
    expect(clientsText(ended('requested', 'bob'), 0)).toBe('stopped by bob');
    expect(clientsText(ended('no-client', 'spyglass'), 0)).toBe('ended: no client for the grace period');
    expect(clientsText({ ...base, state: 'finished', stoppedBy: null } as QueryInfo, 0)).toBe('');
  });
});

describe('alerts', () => {
  it('an alert, the list and a new alert on a query have URLs; the query runs for ever', () => {
    expect(parseRoute(formatRoute({ page: 'alerts', name: 'busy orgs' }))).toEqual({ page: 'alerts', name: 'busy orgs' });
    expect(parseRoute('#/alerts')).toEqual({ page: 'alerts' });
    const q = "SELECT org, COUNT(*) AS n FROM STREAM(30s, TIME) WHERE x = 'a b' GROUP BY org";
    expect(parseRoute(formatRoute({ page: 'alerts', create: true, q }))).toEqual({ page: 'alerts', create: true, q });
    expect(asStanding(q)).toBe("SELECT org, COUNT(*) AS n FROM STREAM(FOREVER) WHERE x = 'a b' GROUP BY org");
    expect(asStanding('SELECT * FROM STREAM()')).toBe('SELECT * FROM STREAM(FOREVER)');
  });
});

describe('standing queries (T2-07)', () => {
  it('each window of a report is a result, numbered from 1', () => {
    const r = standingResults([
      { window: { start: 0, end: 3_600_000, final: true }, records: [{ org: 'a', docs: 3 }], meta: { late: 0 } },
      { window: { start: 3_600_000, end: 7_200_000, final: false }, records: [] },
    ]);
    expect(r.map((x) => [x.meta.window!.number, x.meta.final, x.records.length])).toEqual([
      [1, true, 1],
      [2, false, 0],
    ]);
    expect(parseRoute(formatRoute({ page: 'standing', name: 'usage by org' }))).toEqual({ page: 'standing', name: 'usage by org' });
    expect(parseRoute('#/standing')).toEqual({ page: 'standing' });
    expect(parseRoute(formatRoute({ page: 'query', q: 'x', view: 'chart', scale: 'log' }))).toMatchObject({ scale: 'log' });
  });
});

describe('completion of a mistyped field (T2-28)', () => {
  const field = (path: string) => ({ path, types: ['STRING'], share: 1, examples: [] });
  const fields = ['device', 'device_info.screen', 'demographics.country', 'duration', 'id'].map(field);
  it('offers the close names, closest first, for a word that matches none by its letters', () => {
    expect(closeFields('devise', fields)).toEqual(['device']);
    expect(closeFields('duraton', fields)).toEqual(['duration']);
  });
  it('offers nothing for short words, exact names or the beginning of a name', () => {
    expect(closeFields('de', fields)).toEqual([]);
    expect(closeFields('device', fields)).toEqual([]);
    expect(closeFields('devi', fields)).toEqual([]);
  });
});

describe('a warning about a field (T2-28)', () => {
  it('marks where the field is first named, not inside a string or another name', () => {
    const doc = "SELECT x_devise, 'devise' AS s FROM STREAM(10s, TIME) WHERE devise = 'a'";
    const r = fieldRange(doc, 'devise');
    expect(doc.slice(r.from, r.to)).toBe('devise');
    expect(r.from).toBe(doc.indexOf('WHERE devise') + 6);
    expect(fieldRange('SELECT 1 FROM STREAM()', 'nope')).toEqual({ from: 0, to: 0 });
  });
});
