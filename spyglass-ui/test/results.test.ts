import { describe, expect, it } from 'vitest';
import { parseCsv, toCsv, windowsCsv } from '../src/results/export';
import { pivot } from '../src/results/pivot';
import { chartData, chartsFor, shapeOf } from '../src/results/shape';
import { Result, Row } from '../src/results/types';
import { formatRoute, parseRoute } from '../src/route';

function res(records: Row[], n?: number): Result {
  return { records, meta: n ? { window: { number: n, name: 'TUMBLING(1000, TIME)', emitTime: 0, startTime: 0, size: 1 } } : {} };
}

describe('chart by result shape', () => {
  it('one row per window of numbers: a line per column over windows', () => {
    const rs = [res([{ n: 941, lat: 1.5 }], 1), res([{ n: 1000, lat: 2.5 }], 2), res([{ n: 999 }], 3)];
    const s = shapeOf(rs);
    expect(s).toEqual({ kind: 'single', metrics: ['n', 'lat'] });
    expect(chartsFor(s)).toEqual(['lines', 'bars']);
    expect(chartData(rs, 2, s, 'lines')).toEqual({
      type: 'lines',
      x: [1, 2, 3],
      xLabel: 'window',
      series: [
        { name: 'n', values: [941, 1000, 999] },
        { name: 'lat', values: [1.5, 2.5, null] },
      ],
    });
  });

  it('GROUP BY and TOP K: bars of the selected window', () => {
    const rs = [res([{ device: 'mobile', n: 887 }, { device: 'desktop', n: 331 }])];
    const s = shapeOf(rs);
    expect(s).toEqual({ kind: 'grouped', keys: ['device'], metrics: ['n'] });
    expect(chartData(rs, 0, s, 'bars')).toEqual({ type: 'bars', categories: ['mobile', 'desktop'], categoryLabel: 'device', series: [{ name: 'n', values: [887, 331] }] });
    // numeric keys are keys when the query says so
    const byUser = [res([{ user_id: 1, n: 3 }, { user_id: 2, n: 4 }])];
    expect(shapeOf(byUser, ['user_id'])).toEqual({ kind: 'grouped', keys: ['user_id'], metrics: ['n'] });
    // raw records that look like a grouping are raw when the query says so
    expect(shapeOf([res([{ id: 'a1', status: 500, device: 'tv' }])], [])).toEqual({ kind: 'raw' });
    const lines = chartData([res([{ device: 'a', n: 1 }], 1), res([{ device: 'a', n: 2 }, { device: 'b', n: 5 }], 2)], 1, s, 'lines');
    expect(lines).toEqual({
      type: 'lines',
      x: [1, 2],
      xLabel: 'window',
      series: [
        { name: 'b n', values: [null, 5] },
        { name: 'a n', values: [1, 2] },
      ],
    });
  });

  it('FREQ: histogram (and its CDF); CUMFREQ: CDF; QUANTILE: the quantile curve', () => {
    const freq = [
      res([
        { Range: '(-∞ to 0.0)', Count: 0.0, Probability: 0.0 },
        { Range: '[0.0 to 50000.0)', Count: 1699.0, Probability: 0.8495 },
        { Range: '[50000.0 to +∞)', Count: 301.0, Probability: 0.1505 },
      ]),
    ];
    const s = shapeOf(freq);
    expect(s.kind).toBe('freq');
    expect(chartData(freq, 0, s, 'histogram')).toEqual({
      type: 'histogram',
      categories: ['(-∞ to 0.0)', '[0.0 to 50000.0)', '[50000.0 to +∞)'],
      short: ['< 0', '0–50k', '≥ 50k'],
      categoryLabel: 'Range',
      series: [{ name: 'Count', values: [0, 1699, 301] }],
    });
    expect(chartData(freq, 0, s, 'cdf')).toMatchObject({ type: 'cdf', x: [0, 50000], series: [{ values: [0, 0.8495] }] });
    const cum = [res([{ Range: '(-∞ to 50.0)', Count: 1407.0, Probability: 0.7035 }, { Range: '(-∞ to +∞)', Count: 2000.0, Probability: 1.0 }])];
    expect(shapeOf(cum).kind).toBe('cumfreq');
    expect(chartData(cum, 0, shapeOf(cum), 'cdf')).toMatchObject({ x: [50], series: [{ values: [0.7035] }] });
    const q = [res([{ Quantile: 0.0, Value: 3.0 }, { Quantile: 0.5, Value: 2183.0 }, { Quantile: 1.0, Value: 6835269.0 }])];
    expect(shapeOf(q).kind).toBe('quantile');
    expect(chartData(q, 0, shapeOf(q), 'quantile')).toEqual({ type: 'quantile', x: [0, 0.5, 1], xLabel: 'quantile', series: [{ name: 'Value', values: [3, 2183, 6835269] }] });
  });

  it('raw records have no chart', () => {
    const raw = [res([{ id: 'a', status: 200, device: 'x', tags: ['a'] }, { id: 'b', status: 500 }])];
    expect(shapeOf(raw).kind).toBe('raw');
    expect(chartsFor(shapeOf(raw))).toEqual([]);
    expect(shapeOf([res([])]).kind).toBe('raw');
  });
});

describe('CSV export', () => {
  it('writes a header of every column and quotes what needs it', () => {
    const rows = [{ a: 1, b: 'x,y' }, { b: 'say "hi"', c: { k: [1, 2] } }, { a: null, b: 'line\nbreak' }];
    const csv = toCsv(rows);
    expect(csv).toBe('a,b,c\r\n1,"x,y",\r\n,"say ""hi""","{""k"":[1,2]}"\r\n,"line\nbreak",\r\n');
    expect(parseCsv(csv)).toEqual([
      ['a', 'b', 'c'],
      ['1', 'x,y', ''],
      ['', 'say "hi"', '{"k":[1,2]}'],
      ['', 'line\nbreak', ''],
    ]);
  });

  it('all windows: the window number first', () => {
    const csv = windowsCsv([res([{ n: 1 }], 1), res([{ n: 2 }, { n: 3, m: 1.5 }], 2)]);
    expect(parseCsv(csv)).toEqual([
      ['window', 'n', 'm'],
      ['1', '1', ''],
      ['2', '2', ''],
      ['2', '3', '1.5'],
    ]);
  });
});

describe('pivot', () => {
  it('first key down, the others across, with totals', () => {
    const p = pivot(
      [
        { country: 'US', device: 'mobile', n: 3 },
        { country: 'US', device: 'desktop', n: 1 },
        { country: 'CA', device: 'mobile', n: 2 },
      ],
      ['country', 'device'],
      'n',
    )!;
    expect(p.rows).toEqual(['CA', 'US']);
    expect(p.cols).toEqual(['desktop', 'mobile']);
    expect(p.cells).toEqual([
      [null, 2],
      [1, 3],
    ]);
    expect(p.rowTotals).toEqual([2, 4]);
    expect(p.colTotals).toEqual([1, 5]);
    expect(pivot([], ['a'], 'n')).toBeNull();
  });
});

describe('the URL holds the state', () => {
  it('round-trips', () => {
    const r = { page: 'query' as const, q: "SELECT * FROM STREAM(1s, TIME) WHERE a = 'x y&z'", view: 'chart' as const, chart: 'lines', w: 3, run: 'abc', builder: true };
    expect(parseRoute(formatRoute(r))).toEqual(r);
    expect(parseRoute('#/saved/s1?q=x')).toEqual({ page: 'query', saved: 's1', q: 'x', view: 'table' });
    expect(parseRoute('#/saved')).toEqual({ page: 'saved' });
    expect(parseRoute('')).toEqual({ page: 'query', q: '', view: 'table' });
    expect(formatRoute({ page: 'running' })).toBe('#/running');
  });
});
