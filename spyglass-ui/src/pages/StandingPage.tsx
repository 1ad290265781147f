/**
 * Standing queries (the service's metering, docs/metering.md): the list, each one's report as a
 * table, chart or pivot over its windows, and create and delete for those who may. Shown only when
 * the service meters (GET /api/standing-queries answers 404 otherwise).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, Quota, SchemaField, api, plainError } from '../api';
import { queryKeys } from '../bql/shape';
import { StandingWindow, standingResults } from '../results/standing';
import { formatRoute } from '../route';
import type { View } from '../route';
import { DataTable } from '../ui/DataTable';
import { Editor } from '../ui/Editor';
import { Notice, Problem } from '../ui/Messages';
import { Results } from '../ui/Results';
import { useRepeatedRead } from '../ui/repeat';

export interface Standing {
  name: string;
  query: string;
  owner: string;
  created: number;
  state: string;
  error?: string;
}

/** How often the report shown is read again. */
const REFRESH_MS = 10_000;

const EXAMPLE = 'SELECT org, COUNT(*) AS docs, SUM(quantity) AS total FROM STREAM(FOREVER) GROUP BY org WINDOWING TUMBLING(1h, EVENT_TIME(time))';

export function StandingPage({ name, fields, quota }: { name?: string; fields: readonly SchemaField[]; quota: Quota | null }) {
  const [list, setList] = useState<Standing[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [off, setOff] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [text, setText] = useState(EXAMPLE);
  const [version, setVersion] = useState(0);

  const load = () =>
    api<{ standingQueries: Standing[] }>('GET', '/api/standing-queries')
      .then((r) => {
        setList(r.standingQueries);
        setOff(null);
      })
      .catch((e: ApiError) => (e.status === 404 ? setOff(e.plain()) : setProblem(e.plain())));
  useEffect(() => {
    load();
  }, [version]);

  const create = async (newName: string) => {
    try {
      await api('POST', '/api/standing-queries', { name: newName, query: text });
      setCreating(false);
      setProblem(null);
      location.hash = formatRoute({ page: 'standing', name: newName });
      setVersion((v) => v + 1);
    } catch (e) {
      setProblem(plainError(e));
    }
  };

  const remove = async (s: Standing) => {
    if (!confirm(`Delete the standing query “${s.name}”? Its windows are forgotten.`)) return;
    try {
      await api('DELETE', `/api/standing-queries/${encodeURIComponent(s.name)}`);
      setProblem(null);
      if (name === s.name) location.hash = formatRoute({ page: 'standing' });
      setVersion((v) => v + 1);
    } catch (e) {
      setProblem(plainError(e));
    }
  };

  const may = (s: Standing) => !!quota && (quota.admin || quota.user === s.owner);
  const chosen = list?.find((s) => s.name === name);
  return (
    <main class="page">
      <h1>Standing queries</h1>
      <p class="muted">Queries that run until deleted over the documents sent to the service (POST /api/ingest), their windows kept across restarts.</p>
      <Notice text={off} />
      <Problem text={problem} />
      {list && list.length === 0 && <p>No standing query yet.</p>}
      {list && list.length > 0 && (
        <DataTable
          kind="standing"
          headings={['Name', 'Query', 'Owner', 'Created', 'State']}
          actions
          items={list}
          row={(s) => (
            <tr data-standing={s.name} aria-current={s.name === name ? 'true' : undefined}>
              <td>
                <a href={formatRoute({ page: 'standing', name: s.name })}>{s.name}</a>
              </td>
              <td class="mono query-text">{s.query}</td>
              <td>{s.owner}</td>
              <td class="muted nowrap">{new Date(s.created).toLocaleString()}</td>
              <td>
                {s.state === 'RUNNING' ? 'running' : s.state.toLowerCase()}
                {s.error && <div class="error">{s.error}</div>}
              </td>
              <td class="actions-cell">
                {may(s) && (
                  <button type="button" aria-label={`Delete ${s.name}`} onClick={() => remove(s)}>
                    Delete
                  </button>
                )}
              </td>
            </tr>
          )}
        />
      )}
      {!off && !creating && (
        <p>
          <button type="button" onClick={() => setCreating(true)}>
            New standing query…
          </button>
        </p>
      )}
      {creating && (
        <form
          class="standing-form"
          onSubmit={(e) => {
            e.preventDefault();
            const n = (e.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
            if (n) create(n);
          }}
        >
          <h2>New standing query</h2>
          <label>
            Name <input name="name" aria-label="Name of the standing query" placeholder="usage-by-org" pattern="[A-Za-z0-9._\-]{1,100}" required autoFocus />
          </label>
          <Editor value={text} onChange={setText} onRun={() => undefined} fields={() => fields} onValidated={() => undefined} />
          <div class="actions">
            <button type="submit" class="primary">
              Create
            </button>
            <button type="button" onClick={() => setCreating(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {chosen && <Report standing={chosen} />}
      {name && list && !chosen && (
        <p class="error" role="alert">
          No standing query is named “{name}”: it may have been deleted.
        </p>
      )}
    </main>
  );
}

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** The time range of a window, in the browser's time zone. */
function windowRange(start: number, end: number | undefined): string {
  return end == null ? when.format(start) : `${when.format(start)} to ${when.format(end)}`;
}

/** A standing query's windows, read again every 10 s, shown as the query page shows results. */
function Report({ standing }: { standing: Standing }) {
  const [windows, setWindows] = useState<StandingWindow[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [state, setState] = useState<{ view: View; chart?: string; metric?: string; w?: number; scale?: string }>({ view: 'table' });

  useRepeatedRead(
    (wanted) =>
      api<StandingWindow[]>('GET', `/api/standing-queries/${encodeURIComponent(standing.name)}/results`)
        .then((w) => {
          if (!wanted()) return;
          setWindows(w);
          setProblem(null);
          setVersion((v) => v + 1);
        })
        .catch((e: ApiError) => wanted() && setProblem(e.plain())),
    REFRESH_MS,
    [standing.name],
  );

  const results = windows ? standingResults(windows) : [];
  const late = (windows ?? []).reduce((a, w) => a + (w.meta?.late ?? 0), 0);
  return (
    <section class="report" aria-label={`Report of ${standing.name}`}>
      <h2>Report of {standing.name}</h2>
      <Problem text={problem} />
      {windows && windows.length === 0 && <p>No window yet: its windows appear as documents arrive (POST /api/ingest).</p>}
      {late > 0 && <p class="muted">{late.toLocaleString()} documents came too late for their window (see meta.late in the JSON view).</p>}
      {results.length > 0 && (
        <Results
          results={results}
          version={version}
          view={state.view}
          chart={state.chart}
          metric={state.metric}
          w={state.w}
          scale={state.scale}
          keys={queryKeys(standing.query)}
          describe={(r) => (r.meta.window ? windowRange(r.meta.window.startTime, windows![r.meta.window.number - 1]?.window.end) : undefined)}
          onChange={(p) => setState((s) => ({ ...s, ...p }))}
        />
      )}
    </section>
  );
}
