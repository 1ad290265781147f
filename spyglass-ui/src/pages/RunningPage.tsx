/** The caller's running queries (every user's for an admin), with progress and a stop button. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, QueryInfo, Quota, api } from '../api';
import { formatRoute } from '../route';

export function RunningPage({ onQueriesChanged }: { onQueriesChanged(): void }) {
  const [queries, setQueries] = useState<QueryInfo[] | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [tick, setTick] = useState(0);

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

  const stop = async (id: string) => {
    try {
      await api('DELETE', `/api/queries/${encodeURIComponent(id)}`);
      onQueriesChanged();
      setTick((x) => x + 1);
    } catch (e) {
      setProblem(e instanceof ApiError ? e.plain() : String(e));
    }
  };

  const running = (queries ?? []).filter((q) => q.state === 'running');
  const ended = (queries ?? []).filter((q) => q.state !== 'running');
  return (
    <main class="page">
      <h1>Running queries</h1>
      {quota && (
        <p class="muted">
          {quota.admin ? 'As an admin you see every user’s queries. ' : ''}
          {quota.user} runs {quota.running} of at most {quota.maxQueriesPerUser}; the service runs {quota.runningAll} of at most {quota.maxQueries}.
        </p>
      )}
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {queries && running.length === 0 && <p>No query is running.</p>}
      {running.length > 0 && <QueryTable queries={running} stop={stop} />}
      {ended.length > 0 && (
        <>
          <h2>Ended recently</h2>
          <QueryTable queries={ended} />
        </>
      )}
    </main>
  );
}

function QueryTable({ queries, stop }: { queries: QueryInfo[]; stop?(id: string): void }) {
  return (
    <div class="table-wrap">
      <table class="data queries">
        <thead>
          <tr>
            <th scope="col">Query</th>
            <th scope="col">Owner</th>
            <th scope="col">Progress</th>
            <th scope="col">Records seen</th>
            <th scope="col">Results</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {queries.map((q) => {
            const p = q.progress;
            const pct = p.durationMs ? Math.min(100, (p.elapsedMs / p.durationMs) * 100) : 0;
            return (
              <tr data-query-id={q.id}>
                <td class="mono query-text">
                  <a href={formatRoute({ page: 'query', q: q.query, view: 'table', run: q.id })}>{q.query}</a>
                  {q.error && <div class="error">{q.error.message}</div>}
                </td>
                <td>{q.owner}</td>
                <td>
                  <div class="bar small" role="progressbar" aria-label={`Progress of ${q.id}`} aria-valuenow={Math.round(pct)} aria-valuemin={0} aria-valuemax={100}>
                    <span style={{ transform: `scaleX(${(q.state === 'running' ? pct : 100) / 100})` }} />
                  </div>
                  <span class="muted">
                    {q.state === 'running'
                      ? `${Math.round(p.elapsedMs / 1000)} of ${Math.round(p.durationMs / 1000)} s`
                      : `${q.state} after ${seconds(p.elapsedMs)} of ${Math.round(p.durationMs / 1000)} s`}
                  </span>
                </td>
                <td class="num">{p.recordsSeen.toLocaleString()}</td>
                <td class="num">{p.resultsEmitted}</td>
                <td>
                  {stop && (
                    <button type="button" aria-label={`Stop query ${q.id}`} onClick={() => stop(q.id)}>
                      Stop
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** 0.05 s, 1.2 s, 12 s: short times keep a decimal, so that a query that ended at once does not say 0 s. */
function seconds(ms: number): string {
  const s = ms / 1000;
  return (s < 10 ? +s.toFixed(s < 1 ? 2 : 1) : Math.round(s)) + ' s';
}
