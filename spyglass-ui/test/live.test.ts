import { describe, expect, it } from 'vitest';
import { LiveSocket, SocketLike } from '../src/live';
import type { Result } from '../src/results/types';

/** A WebSocket that the test opens, feeds and drops by hand. */
class FakeSocket implements SocketLike {
  readyState = 0;
  sent: any[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onclose: ((e: unknown) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  constructor(readonly url: string) {}
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
  }
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop() {
    this.readyState = 3;
    this.onclose?.({});
  }
  receive(m: object) {
    this.onmessage?.({ data: JSON.stringify(m) });
  }
}

function rig() {
  const sockets: FakeSocket[] = [];
  const timers: (() => void)[] = [];
  let tickets = 0;
  const live = new LiveSocket({
    open: (url) => {
      const s = new FakeSocket(url);
      sockets.push(s);
      return s;
    },
    url: () => 'ws://host/api/ws',
    ticket: async () => `t${++tickets}`,
    setTimeout: (f) => timers.push(f),
    clearTimeout: () => undefined,
  });
  const flush = () => new Promise((r) => setTimeout(r, 0));
  return { live, sockets, timers, flush };
}

const result = (n: number): Result => ({ records: [{ n }], meta: { window: { number: n, name: 'w', emitTime: 0, startTime: 0, size: 1 } } });

describe('one WebSocket for every query of the page', () => {
  it('follows several queries on one socket, opened with a ticket and no token in its URL', async () => {
    const { live, sockets, flush } = rig();
    const got: string[] = [];
    live.follow('a', { result: (r) => got.push('a' + r.records[0].n), error: () => undefined, end: () => got.push('a end') }, { progress: true });
    live.follow('b', { result: (r) => got.push('b' + r.records[0].n), error: () => undefined, end: () => undefined });
    await flush();
    expect(sockets).toHaveLength(1);
    expect(sockets[0].url).toBe('ws://host/api/ws?ticket=t1');
    sockets[0].open();
    expect(sockets[0].sent).toEqual([
      { type: 'subscribe', id: 'a', after: 0, progress: true },
      { type: 'subscribe', id: 'b', after: 0 },
    ]);
    sockets[0].receive({ type: 'result', id: 'a', seq: 1, result: result(1) });
    sockets[0].receive({ type: 'result', id: 'b', seq: 1, result: result(7) });
    sockets[0].receive({ type: 'end', id: 'a' });
    expect(got).toEqual(['a1', 'b7', 'a end']);
  });

  it('reconnects after a drop with a new ticket and resumes after the last result received', async () => {
    const { live, sockets, timers, flush } = rig();
    const seqs: number[] = [];
    live.follow('a', { result: (_r, seq) => seqs.push(seq), error: () => undefined, end: () => undefined });
    await flush();
    sockets[0].open();
    sockets[0].receive({ type: 'result', id: 'a', seq: 1, result: result(1) });
    sockets[0].receive({ type: 'result', id: 'a', seq: 2, result: result(2) });
    sockets[0].drop();
    expect(live.state).toBe('reconnecting');
    expect(timers).toHaveLength(1);
    timers[0]();
    await flush();
    expect(sockets).toHaveLength(2);
    expect(sockets[1].url).toBe('ws://host/api/ws?ticket=t2');
    sockets[1].open();
    expect(sockets[1].sent).toEqual([{ type: 'subscribe', id: 'a', after: 2 }]);
    // a result sent again by the service is not shown twice
    sockets[1].receive({ type: 'result', id: 'a', seq: 2, result: result(2) });
    sockets[1].receive({ type: 'result', id: 'a', seq: 3, result: result(3) });
    expect(seqs).toEqual([1, 2, 3]);
    expect(live.state).toBe('open');
  });

  it('leaves a query it no longer shows, and hears progress and a refusal', async () => {
    const { live, sockets, flush } = rig();
    const said: string[] = [];
    const f = live.follow('a', { result: () => undefined, progress: (p, state) => said.push(`${state} ${p.elapsedMs}`), error: () => undefined, end: () => undefined }, { progress: true });
    live.follow('gone', { result: () => undefined, error: (m, status) => said.push(`${status} ${m}`), end: () => said.push('gone end') });
    await flush();
    sockets[0].open();
    sockets[0].receive({ type: 'progress', id: 'a', state: 'running', progress: { elapsedMs: 1200, durationMs: null, recordsSeen: 5, resultsEmitted: 1 } });
    sockets[0].receive({ type: 'error', id: 'gone', status: 404, error: { message: "No query with id 'gone'" } });
    f.close();
    expect(sockets[0].sent.at(-1)).toEqual({ type: 'unsubscribe', id: 'a' });
    expect(said).toEqual(['running 1200', "404 No query with id 'gone'", 'gone end']);
    expect(live.following()).toEqual([]);
  });

  it('hears of results dropped in the middle of a query and resumes after them, on the same socket', async () => {
    const { live, sockets, timers, flush } = rig();
    const said: string[] = [];
    live.follow('a', { result: (_r, seq) => said.push(`a${seq}`), gap: (from, to) => said.push(`gap ${from}-${to}`), error: () => undefined, end: () => undefined });
    live.follow('b', { result: (_r, seq) => said.push(`b${seq}`), error: () => undefined, end: () => undefined });
    await flush();
    sockets[0].open();
    sockets[0].receive({ type: 'result', id: 'a', seq: 1, result: result(1) });
    sockets[0].receive({ type: 'gap', id: 'a', from: 2, to: 4 });
    sockets[0].receive({ type: 'result', id: 'a', seq: 5, result: result(5) });
    sockets[0].receive({ type: 'result', id: 'b', seq: 1, result: result(1) });
    expect(said).toEqual(['a1', 'gap 2-4', 'a5', 'b1']);
    expect(live.state).toBe('open');
    expect(sockets).toHaveLength(1);
    // after a drop, it resumes past the gap
    sockets[0].receive({ type: 'gap', id: 'b', from: 2, to: 3 });
    sockets[0].drop();
    timers[0]();
    await flush();
    sockets[1].open();
    expect(sockets[1].sent).toEqual([
      { type: 'subscribe', id: 'a', after: 5 },
      { type: 'subscribe', id: 'b', after: 3 },
    ]);
  });
});
