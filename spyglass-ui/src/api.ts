/**
 * The HTTP API of spyglass serve (docs/api.md): JSON calls with the bearer token kept in the
 * browser (for the tab's session, or on this browser when asked to remember it), and errors in
 * plain words. A query's results and progress come over the page's one WebSocket (live.ts).
 */

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
    /** The field of the request's body that is wrong (e.g. condition.having), when the service names it. */
    readonly field: string | null = null,
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

/** Any error as a person should read it: an ApiError's plain text, else its message. */
export function plainError(e: unknown): string {
  return e instanceof ApiError ? e.plain() : String(e);
}

function retryText(s: number): string {
  const at = new Date(Date.now() + s * 1000).toLocaleTimeString();
  return `in ${s} s (at ${at})`;
}

const TOKEN_KEY = 'spyglass.token';
let unauthorized: ((rejected: boolean) => void) | null = null;

function storage(kind: 'sessionStorage' | 'localStorage'): Storage | null {
  try {
    return window[kind];
  } catch {
    return null; // storage refused (a sandboxed frame, a privacy setting)
  }
}

/**
 * The token: kept for this tab's session (sessionStorage), or on this browser (localStorage) when
 * the person asked to remember it.
 */
export function getToken(): string | null {
  return storage('sessionStorage')?.getItem(TOKEN_KEY) ?? storage('localStorage')?.getItem(TOKEN_KEY) ?? null;
}

/** Whether the token is kept on this browser (localStorage) rather than for the session. */
export function tokenRemembered(): boolean {
  return storage('localStorage')?.getItem(TOKEN_KEY) != null;
}

export function setToken(token: string | null, remember = false): void {
  const session = storage('sessionStorage');
  const local = storage('localStorage');
  if (token) session?.setItem(TOKEN_KEY, token);
  else session?.removeItem(TOKEN_KEY);
  if (token && remember) local?.setItem(TOKEN_KEY, token);
  else local?.removeItem(TOKEN_KEY);
}

/** Called on a 401, to ask for a token; {@code rejected} when a token was sent and refused. */
export function onUnauthorized(f: (rejected: boolean) => void): void {
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
  if (res.status === 401) {
    // a token that was sent and refused is dropped, so that the page asks for another
    if (token && getToken() === token) setToken(null);
    unauthorized?.(token != null);
  }
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
    err.field ?? null,
  );
}

export interface Submitted {
  id: string;
  query: string;
}

export interface Progress {
  elapsedMs: number;
  /** null (or absent, or an old service's 9223372036854775807) for a query that runs until stopped. */
  durationMs?: number | null;
  recordsSeen: number;
  recordsMatched?: number;
  resultsEmitted: number;
}

export interface QueryInfo {
  id: string;
  query: string;
  owner: string;
  state: 'running' | 'finished' | 'stopped' | 'failed' | 'interrupted' | string;
  submitted: number;
  ended: number | null;
  progress: Progress;
  error?: { message: string; resolution: string };
  detached?: boolean;
  /** Streams reading its results now. */
  clients?: number;
  /** Since when a running query has had no client (epoch ms), else null. */
  orphanedSince?: number | null;
  /** When the service will end it (the grace period of an orphan, --max-query-duration), else null. */
  endsAt?: number | null;
  /** Why and by whom it was ended before its own end. */
  stoppedBy?: { reason: string; by: string } | null;
  /** Where its results go besides its streams, and how their delivery goes. */
  sinks?: SinkStatus[];
}

export type SinkType = 'webhook' | 'file' | 'kafka';

/** A sink as the API takes it (docs/sinks.md). */
export interface SinkSpec {
  type: SinkType;
  url?: string;
  path?: string;
  topic?: string;
  bootstrap?: string;
}

/** A query's sink and how its delivery goes. */
export interface SinkStatus {
  type: SinkType;
  /** The URL, the path as given, or the topic. */
  target: string;
  delivered: number;
  retried: number;
  dropped: number;
  failing: boolean;
  lastError?: string | null;
  pending?: number;
}

/**
 * Fetches a file the API makes (an export) with the token every call sends, and hands it to the
 * browser as a download named {@code name}; an error answer throws as {@link api} does.
 */
export async function download(path: string, name: string): Promise<void> {
  const headers: Record<string, string> = {};
  const token = getToken();
  if (token) headers.Authorization = 'Bearer ' + token;
  let res: Response;
  try {
    res = await fetch(path, { headers });
  } catch {
    throw new ApiError(0, 'Cannot reach the Spyglass service: is `spyglass serve` still running?');
  }
  if (!res.ok) {
    let err: any = {};
    try {
      err = (await res.json())?.error ?? {};
    } catch {
      // not JSON
    }
    throw new ApiError(res.status, err.message ?? `The service answered ${res.status}`, err.resolution ?? '');
  }
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
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
  /** Fields the query reads that the stream has not shown lately (a likely typo). */
  warnings?: { field: string; message: string; fix?: string }[];
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

/** A query's duration in ms, or null when it runs until stopped (FOREVER). */
export function finiteDuration(ms: number | null | undefined): number | null {
  // an old service sends Long.MAX_VALUE (beyond JavaScript's exact integers), /api/validate -1
  return typeof ms === 'number' && ms > 0 && ms <= Number.MAX_SAFE_INTEGER ? ms : null;
}
