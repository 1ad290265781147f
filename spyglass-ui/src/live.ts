/**
 * The page's one WebSocket (/api/ws, docs/api.md): every query the page follows, its results and
 * its progress, over one connection. A browser opens at most six HTTP/1.1 connections to a host;
 * a stream per query and a poll of its progress used them up with a few tabs open, and then Stop
 * (and the seventh tab) waited for a free one. WebSockets are not counted among those six.
 *
 * The socket is opened with a stream ticket (POST /api/tickets with the token in its header, then
 * /api/ws?ticket=T), never with the token in the URL; a new ticket for each connection. When the
 * connection drops, it reconnects and subscribes again after the last result each query received.
 */
import { ApiError, Progress, api } from './api';
import type { Result } from './results/types';

export interface Follower {
  result(r: Result, seq: number): void;
  /** The query's progress, every second while it runs and once more at its end. */
  progress?(p: Progress, state: string): void;
  /** Results from..to are no longer kept by the service: they will not come. */
  gap?(from: number, to: number): void;
  /** The query cannot be followed (404: not the caller's, or forgotten) or it failed. */
  error(message: string, status: number): void;
  /** After the last result (or an error): nothing more comes. */
  end(): void;
}

export interface Following {
  /** Stops following: the socket leaves the query (which ends after the grace period unless detached). */
  close(): void;
}

/** What the socket needs from a browser's WebSocket (a fake one in tests). */
export interface SocketLike {
  readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((e: unknown) => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  onclose: ((e: unknown) => void) | null;
  onerror: ((e: unknown) => void) | null;
}

export type SocketState = 'closed' | 'connecting' | 'open' | 'reconnecting';

interface Subscription {
  after: number;
  progress: boolean;
  on: Follower;
}

const OPEN = 1;

export interface LiveOptions {
  /** Opens a socket on a URL. */
  open(url: string): SocketLike;
  /** A ticket for the next connection, or null when the service needs none. */
  ticket(): Promise<string | null>;
  /** The socket's URL, without the ticket. */
  url(): string;
  /** Waits before reconnecting, in ms, by attempt (0, 1, 2, ...). */
  backoffMs?(attempt: number): number;
  /** How long a socket that follows nothing stays open. */
  idleMs?: number;
  setTimeout?(f: () => void, ms: number): unknown;
  clearTimeout?(t: unknown): void;
}

export class LiveSocket {
  private ws: SocketLike | null = null;
  private readonly subs = new Map<string, Subscription>();
  private connecting = false;
  private attempt = 0;
  private retryTimer: unknown = null;
  private idleTimer: unknown = null;
  private stateListeners = new Set<(s: SocketState) => void>();
  state: SocketState = 'closed';

  constructor(private readonly o: LiveOptions) {}

  /** Follows a query's results (after result {@code after}) and, if asked, its progress. */
  follow(id: string, on: Follower, { after = 0, progress = false } = {}): Following {
    const sub: Subscription = { after, progress, on };
    this.subs.set(id, sub);
    this.cancelIdle();
    if (this.ws?.readyState === OPEN) this.subscribe(id, sub);
    else this.connect();
    return {
      close: () => {
        if (this.subs.get(id) !== sub) return;
        this.subs.delete(id);
        if (this.ws?.readyState === OPEN) this.send({ type: 'unsubscribe', id });
        if (this.subs.size === 0) this.idleLater();
      },
    };
  }

  /** Hears the socket's state (to say "reconnecting"); returns a function that stops it. */
  onState(f: (s: SocketState) => void): () => void {
    this.stateListeners.add(f);
    return () => this.stateListeners.delete(f);
  }

  /** The ids followed now. */
  following(): string[] {
    return [...this.subs.keys()];
  }

  private setState(s: SocketState) {
    if (this.state === s) return;
    this.state = s;
    for (const f of this.stateListeners) f(s);
  }

  private send(m: object) {
    this.ws?.send(JSON.stringify(m));
  }

  private subscribe(id: string, sub: Subscription) {
    this.send({ type: 'subscribe', id, after: sub.after, ...(sub.progress ? { progress: true } : {}) });
  }

  private async connect() {
    if (this.connecting || this.ws || this.retryTimer != null) return;
    this.connecting = true;
    this.setState(this.attempt ? 'reconnecting' : 'connecting');
    let url = this.o.url();
    try {
      const t = await this.o.ticket();
      if (t) url += (url.includes('?') ? '&' : '?') + 'ticket=' + encodeURIComponent(t);
    } catch {
      // no ticket (the service is down, or the token was refused and the page asks for one)
      this.connecting = false;
      this.retryLater();
      return;
    }
    this.connecting = false;
    if (this.subs.size === 0) {
      this.setState('closed');
      return;
    }
    const ws = this.o.open(url);
    this.ws = ws;
    ws.onopen = () => {
      this.attempt = 0;
      this.setState('open');
      for (const [id, sub] of this.subs) this.subscribe(id, sub);
    };
    ws.onmessage = (e) => this.receive(String(e.data));
    ws.onerror = () => undefined; // onclose follows
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.subs.size) this.retryLater();
      else this.setState('closed');
    };
  }

  private retryLater() {
    const wait = this.o.backoffMs?.(this.attempt) ?? Math.min(8000, 500 * 2 ** this.attempt);
    this.attempt++;
    this.setState('reconnecting');
    const set = this.o.setTimeout ?? ((f: () => void, ms: number) => setTimeout(f, ms));
    this.retryTimer = set(() => {
      this.retryTimer = null;
      if (this.subs.size) this.connect();
      else this.setState('closed');
    }, wait);
  }

  private idleLater() {
    this.cancelIdle();
    const set = this.o.setTimeout ?? ((f: () => void, ms: number) => setTimeout(f, ms));
    this.idleTimer = set(() => {
      this.idleTimer = null;
      if (this.subs.size === 0 && this.ws) {
        const ws = this.ws;
        this.ws = null;
        ws.close(1000, 'following nothing');
        this.setState('closed');
      }
    }, this.o.idleMs ?? 30_000);
  }

  private cancelIdle() {
    if (this.idleTimer != null) {
      (this.o.clearTimeout ?? ((t: unknown) => clearTimeout(t as ReturnType<typeof setTimeout>)))(this.idleTimer);
      this.idleTimer = null;
    }
  }

  private receive(text: string) {
    let m: any;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    const sub = typeof m.id === 'string' ? this.subs.get(m.id) : undefined;
    switch (m.type) {
      case 'result':
        if (!sub || typeof m.seq !== 'number' || m.seq <= sub.after) return; // a result seen before a reconnect
        sub.after = m.seq;
        sub.on.result(m.result as Result, m.seq);
        return;
      case 'progress':
        sub?.on.progress?.(m.progress as Progress, String(m.state));
        return;
      case 'gap':
        if (sub) {
          sub.after = Math.max(sub.after, Number(m.to));
          sub.on.gap?.(Number(m.from), Number(m.to));
        }
        return;
      case 'end':
        if (!sub) return;
        this.subs.delete(m.id);
        if (m.error) sub.on.error(plain(m.error), 0);
        sub.on.end();
        if (this.subs.size === 0) this.idleLater();
        return;
      case 'error':
        if (sub) {
          this.subs.delete(m.id);
          sub.on.error(plain(m.error ?? {}, m.errors), Number(m.status) || 0);
          sub.on.end();
          if (this.subs.size === 0) this.idleLater();
        }
        // an error without an id is about the socket (it fell behind): it closes, and reconnects
        return;
      default:
        // accepted, killed, unsubscribed: nothing to do
        return;
    }
  }
}

function plain(err: { message?: string; resolution?: string }, errors?: { message: string }[]): string {
  if (errors?.length) return errors[0].message;
  return (err.message ?? 'The query cannot be followed') + (err.resolution ? `. ${err.resolution}` : '');
}

function socketUrl(): string {
  return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/api/ws';
}

/** The page's socket (on globalThis for the browser tests, which drop it to see it come back). */
export const live = new LiveSocket({
  open: (url) => new WebSocket(url) as unknown as SocketLike,
  url: socketUrl,
  async ticket() {
    try {
      return (await api<{ ticket: string }>('POST', '/api/tickets')).ticket;
    } catch (e) {
      // a service without the route needs no ticket (the UI and the service come in one jar)
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  },
});
(globalThis as any).__spyglassLive = live;
