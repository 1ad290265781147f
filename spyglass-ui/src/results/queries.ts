/** The Running page's filter: queries whose text, owner or id hold every word typed. */
import type { QueryInfo } from '../api';

export function filterQueries(queries: readonly QueryInfo[], filter: string): QueryInfo[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...queries];
  return queries.filter((q) => {
    const hay = `${q.query}\n${q.owner}\n${q.id}\n${q.state}${isOrphan(q) ? '\norphan' : ''}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}

/** A running query that no client reads: it ends after the grace period unless one reattaches (or it is detached). */
export function isOrphan(q: QueryInfo): boolean {
  return q.state === 'running' && q.orphanedSince != null;
}

/** Whole seconds from now to an epoch time, at least 0. */
function secondsUntil(at: number, now: number): number {
  return Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * Who reads a query and what becomes of it: "2 clients", "no client for 12 s · ends in 48 s unless one
 * reattaches", "no client · detached: runs to its end"; for an ended query, who stopped it ("stopped by bob",
 * "ended: no client for the grace period").
 */
export function clientsText(q: QueryInfo, now: number): string {
  if (q.state !== 'running') {
    const s = q.stoppedBy;
    if (!s) return '';
    switch (s.reason) {
      case 'requested':
        return `stopped by ${s.by}`;
      case 'no-client':
        return 'ended: no client for the grace period';
      case 'max-query-duration':
        return 'ended: ran the longest a STREAM(FOREVER) query runs';
      case 'result-memory':
        return 'ended: its answer outgrew the result memory';
      case 'service-stop':
        return 'ended: the service stopped';
      default:
        return `ended: ${s.reason}`;
    }
  }
  const n = q.clients ?? 0;
  if (!isOrphan(q)) {
    const forever = q.endsAt != null ? ` · ends in ${wholeDuration(secondsUntil(q.endsAt, now))}` : '';
    return `${n} client${n === 1 ? '' : 's'}${forever}`;
  }
  const since = wholeDuration(Math.max(0, Math.floor((now - (q.orphanedSince as number)) / 1000)));
  if (q.detached) {
    return `no client for ${since} · detached: runs to its end` + (q.endsAt != null ? ` (in ${wholeDuration(secondsUntil(q.endsAt, now))})` : '');
  }
  return q.endsAt != null ? `no client for ${since} · ends in ${wholeDuration(secondsUntil(q.endsAt, now))} unless one reattaches` : `no client for ${since}`;
}

/** 45 s, 12 min, 3 h 5 min. */
function wholeDuration(s: number): string {
  if (s < 120) return `${s}\u00a0s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}\u00a0min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h}\u00a0h ${m % 60}\u00a0min` : `${h}\u00a0h`;
}

/** A query's sinks in a few words: "2 sinks", "1 sink · failing"; "" without any. */
export function sinksText(q: QueryInfo): string {
  const sinks = q.sinks ?? [];
  if (!sinks.length) return '';
  const failing = sinks.filter((s) => s.failing).length;
  return `${sinks.length} sink${sinks.length === 1 ? '' : 's'}` + (failing ? ` · ${failing === sinks.length ? '' : failing + ' '}failing` : '');
}

/** Each sink of a query on a line: where, what it delivered and dropped, and why it fails. */
export function sinksTitle(q: QueryInfo): string {
  return (q.sinks ?? [])
    .map(
      (s) =>
        `${s.type} ${s.target}: ${s.delivered.toLocaleString()} delivered, ${s.dropped.toLocaleString()} dropped` +
        (s.failing && s.lastError ? ` · failing: ${s.lastError}` : ''),
    )
    .join('\n');
}
