import { describe, expect, it } from 'vitest';
import type { QueryInfo } from '../src/api';
import { sinksText, sinksTitle } from '../src/results/queries';
import { sinkSpecs } from '../src/ui/SinksField';

const query = (sinks: QueryInfo['sinks']): QueryInfo => ({
  id: 'q',
  query: 'SELECT 1',
  owner: 'ann',
  state: 'running',
  submitted: 0,
  ended: null,
  progress: { elapsedMs: 0, recordsSeen: 0, resultsEmitted: 0 },
  sinks,
});

describe('sinks', () => {
  it('drafts with a target become the API’s sinks', () => {
    expect(
      sinkSpecs([
        { type: 'webhook', target: ' https://h/x ' },
        { type: 'file', target: 'out.ndjson' },
        { type: 'kafka', target: 'results' },
        { type: 'webhook', target: '   ' },
      ]),
    ).toEqual([
      { type: 'webhook', url: 'https://h/x' },
      { type: 'file', path: 'out.ndjson' },
      { type: 'kafka', topic: 'results' },
    ]);
  });

  it('the Running page says how many sinks and which fail', () => {
    const ok = { type: 'webhook' as const, target: 'https://h/x', delivered: 1200, retried: 0, dropped: 0, failing: false, lastError: null };
    const bad = { type: 'file' as const, target: 'a.ndjson', delivered: 3, retried: 9, dropped: 2, failing: true, lastError: 'cannot write' };
    expect(sinksText(query(undefined))).toBe('');
    expect(sinksText(query([ok]))).toBe('1 sink');
    expect(sinksText(query([ok, bad]))).toBe('2 sinks · 1 failing');
    expect(sinksText(query([bad]))).toBe('1 sink · failing');
    expect(sinksTitle(query([ok, bad]))).toBe('webhook https://h/x: 1,200 delivered, 0 dropped\nfile a.ndjson: 3 delivered, 2 dropped · failing: cannot write');
  });
});
