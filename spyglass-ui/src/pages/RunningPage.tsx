/**
 * The caller's running queries (every user's for an admin), with progress, clients and a stop button;
 * orphans (queries no client reads, which end after the grace period unless one reattaches) say so and
 * who owns them; a filter, and Stop selected / Stop all of mine for when there are many.
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, QueryInfo, Quota, api, finiteDuration, plainError } from '../api';
import { clientsText, filterQueries, isOrphan, sinksText, sinksTitle } from '../results/queries';
import { wholeSeconds } from '../results/progress';
import { formatRoute } from '../route';
import { DataTable } from '../ui/DataTable';
import { Notice, Problem } from '../ui/Messages';

/** @param alerts whether the service has alerts (it meters): each running query then offers one on it */
export function RunningPage({ onQueriesChanged, alerts = false }: { onQueriesChanged(): void; alerts?: boolean }) {
  const [queries, setQueries] = useState<QueryInfo[] | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  const [filter, setFilter] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [stopping, setStopping] = useState(false);

  useEffect(() => {
    let stopped = false;
    api<{ queries: QueryInfo[]; quota: Quota }>('GET', '/api/queries')
      .then((r) => {
        if (stopped) return;
        setQueries(r.queries);
        setQuota(r.quota);
        setProblem(null);
      })
      .catch((e: ApiError) => !stopped && setProblem(e.plain()));
    const t = setTimeout(() => setTick((x) => x + 1), 1000);
    return () => {
      stopped = true;
      clearTimeout(t);
    };
  }, [tick]);

  /** Stops queries, a few at a time; says how many stopped and why any did not. */
  const stopMany = async (ids: string[]) => {
    if (!ids.length) return;
    setStopping(true);
    setProblem(null);
    setNotice(null);
    const failures: string[] = [];
    let stopped = 0;
    const queue = [...ids];
    const worker = async () => {
      for (let id = queue.shift(); id; id = queue.shift()) {
        try {
          await api('DELETE', `/api/queries/${encodeURIComponent(id)}`);
          stopped++;
        } catch (e) {
          failures.push(plainError(e));
        }
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    setStopping(false);
    setSelected(new Set());
    if (ids.length > 1) setNotice(`Stopped ${stopped.toLocaleString()} of ${ids.length.toLocaleString()} queries.`);
    if (failures.length) setProblem(failures[0] + (failures.length > 1 ? ` (and ${failures.length - 1} more)` : ''));
    onQueriesChanged();
    setTick((x) => x + 1);
  };

  const all = queries ?? [];
  const shown = filterQueries(all, filter);
  const running = shown.filter((q) => q.state === 'running');
  const ended = shown.filter((q) => q.state !== 'running');
  const mine = all.filter((q) => q.state === 'running' && quota && q.owner === quota.user);
  const chosen = running.filter((q) => selected.has(q.id)).map((q) => q.id);
  const orphans = all.filter(isOrphan).length;
  const toggle = (id: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    setSelected(next);
  };
  return (
    <main class="page">
      <h1>Running queries</h1>
      {quota && (
        <p class="muted">
          {quota.admin ? 'As an admin you see every user’s queries. ' : ''}
          {quota.user} runs {quota.running} of at most {quota.maxQueriesPerUser}; the service runs {quota.runningAll} of at most {quota.maxQueries}.
          {orphans > 0 && ` ${orphans} ${orphans === 1 ? 'is an orphan' : 'are orphans'} (no client reads ${orphans === 1 ? 'it' : 'them'}): open one to reattach, or filter by “orphan”.`}
        </p>
      )}
      <Problem text={problem} />
      <Notice text={problem ? null : notice} />
      <div class="toolbar">
        <label>
          Filter{' '}
          <input type="search" aria-label="Filter queries" placeholder="text, owner or id" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
        </label>
        <button type="button" disabled={stopping || chosen.length === 0} onClick={() => stopMany(chosen)}>
          Stop selected{chosen.length ? ` (${chosen.length})` : ''}
        </button>
        <button
          type="button"
          disabled={stopping || mine.length === 0}
          onClick={() => confirm(`Stop all ${mine.length} of your running queries?`) && stopMany(mine.map((q) => q.id))}
        >
          Stop all of mine{mine.length ? ` (${mine.length})` : ''}
        </button>
        {filter && (
          <span class="muted">
            {running.length + ended.length} of {all.length} shown
          </span>
        )}
      </div>
      {queries && running.length === 0 && <p>{filter ? 'No running query matches the filter.' : 'No query is running.'}</p>}
      {running.length > 0 && (
        <QueryTable
          queries={running}
          stop={(id) => stopMany([id])}
          alerts={alerts}
          selected={selected}
          onSelect={toggle}
          onSelectAll={(on) => setSelected(on ? new Set(running.map((q) => q.id)) : new Set())}
        />
      )}
      {ended.length > 0 && (
        <>
          <h2>Ended recently</h2>
          <QueryTable queries={ended} />
        </>
      )}
    </main>
  );
}

interface TableProps {
  queries: QueryInfo[];
  stop?(id: string): void;
  /** Offer an alert on each query (its text prefilled in a new alert). */
  alerts?: boolean;
  selected?: Set<string>;
  onSelect?(id: string, on: boolean): void;
  onSelectAll?(on: boolean): void;
}

function QueryTable({ queries, stop, alerts, selected, onSelect, onSelectAll }: TableProps) {
  const all = !!selected && queries.length > 0 && queries.every((q) => selected.has(q.id));
  return (
    <DataTable
      kind="queries"
      headings={[
        onSelect && <input type="checkbox" aria-label="Select every query shown" checked={all} onChange={(e) => onSelectAll?.((e.target as HTMLInputElement).checked)} />,
        'Query',
        'Owner',
        'Clients',
        'Progress',
        'Records seen',
        'Results',
        'Sinks',
      ]}
      actions
      items={queries}
      row={(q) => {
        const p = q.progress;
        const orphan = isOrphan(q);
        const duration = finiteDuration(p.durationMs);
        const pct = duration ? Math.min(100, (p.elapsedMs / duration) * 100) : 0;
        return (
          <tr data-query-id={q.id} class={orphan ? 'orphan' : undefined}>
            {onSelect && (
              <td>
                <input type="checkbox" aria-label={`Select query ${q.id}`} checked={selected?.has(q.id)} onChange={(e) => onSelect(q.id, (e.target as HTMLInputElement).checked)} />
              </td>
            )}
            <td class="mono query-text">
              <a href={formatRoute({ page: 'query', q: q.query, view: 'table', run: q.id })}>{q.query}</a>
              {q.error && <div class="error">{q.error.message}</div>}
            </td>
            <td>{q.owner}</td>
            <td class={orphan ? 'clients warn' : 'clients'} title={orphan ? 'An orphan: no client reads it. Open it to reattach.' : undefined}>
              {clientsText(q, Date.now())}
            </td>
            <td>
              {duration || q.state !== 'running' ? (
                <div class="bar small" role="progressbar" aria-label={`Progress of ${q.id}`} aria-valuenow={Math.round(pct)} aria-valuemin={0} aria-valuemax={100}>
                  <span style={{ transform: `scaleX(${(q.state === 'running' ? pct : 100) / 100})` }} />
                </div>
              ) : (
                <div class="bar small endless" aria-hidden="true">
                  <span style={{ transform: 'scaleX(0)' }} />
                </div>
              )}
              <span class="muted">
                {q.state === 'running'
                  ? duration
                    ? `${Math.round(p.elapsedMs / 1000)} of ${Math.round(duration / 1000)}\u00a0s`
                    : `${wholeSeconds(p.elapsedMs)} · until stopped`
                  : `${q.state} after ${seconds(p.elapsedMs)}${duration ? ` of ${Math.round(duration / 1000)} s` : ''}`}
              </span>
            </td>
            <td class="num">{p.recordsSeen.toLocaleString()}</td>
            <td class="num">{p.resultsEmitted.toLocaleString()}</td>
            <td class={q.sinks?.some((k) => k.failing) ? 'sinks warn' : 'sinks'} title={sinksTitle(q) || undefined}>
              {sinksText(q) || <span class="muted">none</span>}
            </td>
            <td>
              {stop && (
                <button type="button" aria-label={`Stop query ${q.id}`} onClick={() => stop(q.id)}>
                  Stop
                </button>
              )}
              {alerts && (
                <>
                  {' '}
                  <a class="button" aria-label={`Create an alert on query ${q.id}`} href={formatRoute({ page: 'alerts', create: true, q: q.query })}>
                    Alert…
                  </a>
                </>
              )}
            </td>
          </tr>
        );
      }}
    />
  );
}

/** 0.05 s, 1.2 s, 12 s: short times keep a decimal, so that a query that ended at once does not say 0 s. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return (s < 10 ? +s.toFixed(s < 1 ? 2 : 1) : Math.round(s)) + ' s';
}
