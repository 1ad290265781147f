/**
 * The HTTP API of spyglass serve (docs/api.md): JSON calls with the bearer token kept in the
 * browser, errors in plain words, and a query's results as Server-Sent Events.
 */
import type { Result } from './results/types';

/** An error of a query's text, at a 1-based line and column ({@code start}/{@code end}: offsets). */
export interface BqlError {
  line: number;
  column: number;
  message: string;
  fix?: string;
  start?: number;
  end?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly resolution = '',
    readonly errors: BqlError[] = [],
    /** Seconds to wait before retrying (429, 503). */
    readonly retryAfterS: number | null = null,
  ) {
    super(message);
  }

  /** The error as a person should read it. */
  plain(): string {
    if (this.status === 429) {
      const when = this.retryAfterS != null ? retryText(this.retryAfterS) : 'in a moment';
      const what = /^too many/i.test(this.message) ? this.message : `Too many queries are running: ${this.message}`;
      return `${what.replace(/\.$/, '')}. Try again ${when}.`;
    }
    if (this.errors.length) {
      const e = this.errors[0];
      return `Line ${e.line}, column ${e.column}: ${e.message}${e.fix ? ` (${e.fix})` : ''}`;
    }
    if (this.status === 0) return this.message;
    return this.message + (this.resolution ? `. ${this.resolution}` : '');
  }
}

function retryText(s: number): string {
  const at = new Date(Date.now() + s * 1000).toLocaleTimeString();
  return `in ${s} s (at ${at})`;
}

const TOKEN_KEY = 'spyglass.token';
let unauthorized: (() => void) | null = null;

export function getToken(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY);
  } catch {
    return null;
  }
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
}

/** Called on a 401, to ask for a token. */
export function onUnauthorized(f: () => void): void {
  unauthorized = f;
}

export async function api<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const token = getToken();
  if (token) headers.Authorization = 'Bearer ' + token;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'Cannot reach the Spyglass service: is `spyglass serve` still running?');
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: reported below
  }
  if (res.ok) return json as T;
  if (res.status === 401) unauthorized?.();
  const retry = res.headers.get('Retry-After');
  const err = json?.error ?? {};
  if (Array.isArray(json?.errors)) {
    throw new ApiError(res.status, 'The query is not valid', '', json.errors);
  }
  throw new ApiError(
    res.status,
    err.message ?? `The service answered ${res.status} ${res.statusText}`,
    err.resolution ?? '',
    [],
    retry != null && /^\d+$/.test(retry) ? Number(retry) : (err.retryAfterSeconds ?? null),
  );
}

export interface Submitted {
  id: string;
  query: string;
}

export interface Progress {
  elapsedMs: number;
  durationMs: number;
  recordsSeen: number;
  recordsMatched?: number;
  resultsEmitted: number;
}

export interface QueryInfo {
  id: string;
  query: string;
  owner: string;
  state: 'running' | 'finished' | string;
  submitted: number;
  ended: number | null;
  progress: Progress;
  error?: { message: string; resolution: string };
}

export interface Quota {
  user: string;
  admin: boolean;
  running: number;
  maxQueriesPerUser: number;
  runningAll: number;
  maxQueries: number;
}

export interface Validated {
  valid: true;
  canonical: string;
  /** The query as a person writes it: defaults left out, durations with a unit. */
  formatted?: string;
  explain: string;
  durationMs?: number;
}

export interface SchemaField {
  path: string;
  types: string[];
  share: number;
  examples: unknown[];
}

export interface Schema {
  records: number;
  sampled?: string;
  fields: SchemaField[];
}

export interface Saved {
  id: string;
  name: string;
  query: string;
  owner: string;
  created: number;
  updated?: number;
}

export interface HistoryEntry {
  id: string;
  query: string;
  state: string;
  submitted: number;
  ended: number | null;
  results: number;
  error?: string;
}

export interface Stream {
  close(): void;
}

/**
 * Follows a query's results (SSE). A dropped connection is resumed from the last result received
 * (the browser sends Last-Event-ID); the stream is closed after the final result.
 */
export function follow(
  id: string,
  on: { result(r: Result): void; error(message: string): void; end(): void },
): Stream {
  const token = getToken();
  const url = `/api/queries/${encodeURIComponent(id)}/results` + (token ? `?access_token=${encodeURIComponent(token)}` : '');
  const es = new EventSource(url);
  let done = false;
  const finish = () => {
    if (!done) {
      done = true;
      es.close();
      on.end();
    }
  };
  es.addEventListener('result', (e) => {
    const r = JSON.parse((e as MessageEvent).data) as Result;
    on.result(r);
    if (r.meta.final) finish();
  });
  es.addEventListener('error', (e) => {
    const data = (e as MessageEvent).data;
    if (typeof data === 'string' && data) {
      let msg = data;
      try {
        const err = JSON.parse(data).error;
        msg = err.message + (err.resolution ? `. ${err.resolution}` : '');
      } catch {
        // plain text
      }
      on.error(msg);
      finish();
    } else if (es.readyState === EventSource.CLOSED && !done) {
      on.error('The results stream was refused: the query may have ended long ago, or the service stopped');
      finish();
    }
  });
  return { close: () => ((done = true), es.close()) };
}
