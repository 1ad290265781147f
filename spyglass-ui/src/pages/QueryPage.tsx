/** The query page: editor and builder, run and stop, progress, and the live results. */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, BqlError, Progress, Saved, SchemaField, Submitted, Validated, api, plainError } from '../api';
import { queryKeys } from '../bql/shape';
import { Following, live } from '../live';
import { progressText } from '../results/progress';
import type { Result } from '../results/types';
import type { QueryState } from '../route';
import { BuilderPanel } from '../ui/BuilderPanel';
import { Editor } from '../ui/Editor';
import { Notice, Problem } from '../ui/Messages';
import { Results } from '../ui/Results';
import { SinkDraft, SinksField, sinkSpecs } from '../ui/SinksField';

export interface QueryPageProps {
  state: QueryState & { saved?: string };
  nav(p: Partial<QueryState> & { saved?: string }, replace?: boolean): void;
  fields: readonly SchemaField[];
  user: string | null;
  onQueriesChanged(): void;
}

/** When the page last ran a query and first showed one of its results (for measurements). */
export const timings: { runAt?: number; firstResultMs?: number } = {};
(globalThis as any).__spyglassTimings = timings;

/** How often, at most, arriving results are drawn. */
const RENDER_EVERY_MS = 200;

/** Said when a run cannot be followed: the API's 404 hides whether it ended or is someone else's. */
export const NOT_AVAILABLE = 'This run is not available to you: it ended a while ago or belongs to someone else.';

export function QueryPage({ state, nav, fields, user, onQueriesChanged }: QueryPageProps) {
  const results = useRef<Result[]>([]);
  const [version, setVersion] = useState(0);
  const frame = useRef(0);
  const lastRender = useRef(0);
  const stream = useRef<Following | null>(null);
  const attached = useRef<string | null>(null);
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<Progress | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  // a problem of the last Run, Format or Save, which goes when the query is edited
  const actionProblem = useRef(false);
  const [lint, setLint] = useState<{ valid: Validated | null; errors: BqlError[] }>({ valid: null, errors: [] });
  const [saved, setSaved] = useState<Saved | null>(null);
  const [saving, setSaving] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [sinks, setSinks] = useState<SinkDraft[]>([]);
  const q = state.q;
  // the result's grouping columns as the query says, none for raw records (no chart, no pivot of ids)
  const keys = queryKeys(q);

  // results can arrive hundreds of times a second: the page shows the latest at most every
  // RENDER_EVERY_MS, in an animation frame, and the first one at once
  const refresh = () => {
    if (frame.current) return;
    const wait = Math.max(0, lastRender.current + RENDER_EVERY_MS - performance.now());
    frame.current = window.setTimeout(() => {
      requestAnimationFrame(() => {
        frame.current = 0;
        lastRender.current = performance.now();
        setVersion((v) => v + 1);
      });
    }, wait);
  };

  const attach = (id: string) => {
    stream.current?.close();
    attached.current = id;
    results.current = [];
    setVersion((v) => v + 1);
    setProblem(null);
    setProgress(null);
    setRunning(true);
    stream.current = live.follow(
      id,
      {
      result(r) {
        if (attached.current !== id) return;
        results.current.push(r);
        if (timings.runAt != null && timings.firstResultMs == null) {
          requestAnimationFrame(() => {
            if (timings.runAt != null && timings.firstResultMs == null) timings.firstResultMs = performance.now() - timings.runAt;
          });
        }
        refresh();
      },
      progress(p) {
        if (attached.current === id) setProgress(p);
      },
      gap(from, to) {
        if (attached.current === id) setNotice(`Results ${from} to ${to} are no longer kept by the service: they are missing here.`);
      },
      error(message, status) {
        if (attached.current !== id) return;
        setProblem(status === 404 && results.current.length === 0 ? NOT_AVAILABLE : message);
      },
      end() {
        if (attached.current !== id) return;
        setRunning(false);
        onQueriesChanged();
      },
      },
      { progress: true },
    );
  };

  // follow the run named in the URL (a copied link, the back button, a new run)
  useEffect(() => {
    if (state.run && state.run !== attached.current) attach(state.run);
    if (!state.run && attached.current) {
      stream.current?.close();
      attached.current = null;
      results.current = [];
      setRunning(false);
      setVersion((v) => v + 1);
    }
  }, [state.run]);

  useEffect(() => () => stream.current?.close(), []);

  // a shared saved query: #/saved/ID
  useEffect(() => {
    if (!state.saved) {
      setSaved(null);
      return;
    }
    api<Saved>('GET', `/api/saved/${encodeURIComponent(state.saved)}`)
      .then((s) => {
        setSaved(s);
        if (!state.q) nav({ q: s.query }, true);
      })
      .catch((e: ApiError) => setProblem(e.plain()));
  }, [state.saved]);

  /** A problem of an action on the query's text, said until the text changes. */
  const actionFailed = (message: string) => {
    actionProblem.current = true;
    setProblem(message);
  };

  const run = async () => {
    if (!q.trim()) {
      actionFailed('Write a query first, or build one with the builder.');
      return;
    }
    actionProblem.current = false;
    setProblem(null);
    setNotice(null);
    timings.runAt = performance.now();
    timings.firstResultMs = undefined;
    try {
      const targets = sinkSpecs(sinks);
      const s = await api<Submitted>('POST', '/api/queries', targets.length ? { query: q, sinks: targets } : { query: q });
      nav({ run: s.id, w: undefined });
      onQueriesChanged();
    } catch (e) {
      actionFailed(plainError(e));
    }
  };

  const stop = async () => {
    const id = attached.current;
    if (!id || !running) return;
    try {
      await api('DELETE', `/api/queries/${encodeURIComponent(id)}`);
      setNotice('Stopped: the final result shows what the query had seen.');
    } catch (e) {
      setProblem(plainError(e));
    }
  };

  const format = async () => {
    try {
      const v = await api<Validated>('POST', '/api/validate', { query: q });
      nav({ q: v.formatted ?? v.canonical }, true);
    } catch (e) {
      actionFailed(plainError(e));
    }
  };

  const save = async (name: string) => {
    try {
      const s = await api<Saved>('POST', '/api/saved', { name, query: q });
      setSaving(null);
      setNotice(`Saved as “${s.name}”. Share it with the link above.`);
      nav({ saved: s.id });
    } catch (e) {
      actionFailed(plainError(e));
    }
  };

  const update = async () => {
    if (!saved) return;
    try {
      const s = await api<Saved>('PUT', `/api/saved/${encodeURIComponent(saved.id)}`, { query: q });
      setSaved(s);
      setNotice(`Saved “${s.name}”.`);
    } catch (e) {
      setProblem(plainError(e));
    }
  };

  const runRef = useRef(run);
  runRef.current = run;
  const stopRef = useRef(stop);
  stopRef.current = stop;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && !document.querySelector('dialog[open]')) {
        stopRef.current();
      } else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !e.defaultPrevented) {
        e.preventDefault();
        runRef.current();
      } else if ((e.key === '[' || e.key === ']') && !(e.target as HTMLElement).closest('input, textarea, .cm-editor')) {
        document.querySelector<HTMLButtonElement>(e.key === '[' ? 'button[aria-label="Earlier window"]' : 'button[aria-label="Later window"]')?.click();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const last = results.current[results.current.length - 1];
  const done = !running && !!last;
  const stats = progressText({
    running,
    progress,
    plannedMs: lint.valid?.durationMs,
    ended: last ? (last.meta.final ? 'finished' : 'ended') : 'ended',
    results: results.current.length,
  });
  const pct = stats.percent;
  const shareUrl = saved ? `${location.origin}${location.pathname}#/saved/${encodeURIComponent(saved.id)}` : null;

  return (
    <main class="query-page">
      {saved && (
        <p class="saved-banner">
          Saved query <strong>{saved.name}</strong> by {saved.owner} · Share:{' '}
          <a href={shareUrl!} class="share-link">
            {shareUrl}
          </a>{' '}
          <button type="button" onClick={() => navigator.clipboard?.writeText(shareUrl!)}>
            Copy link
          </button>
        </p>
      )}
      <div class="editor-bar">
        <Editor
          value={q}
          onChange={(text) => {
            if (actionProblem.current) {
              actionProblem.current = false;
              setProblem(null);
            }
            nav({ q: text }, true);
          }}
          onRun={run}
          fields={() => fields}
          onValidated={(valid, errors) => setLint({ valid, errors })}
        />
        <div class="actions">
          <button type="button" class="primary" onClick={run} title="Run (Ctrl/Cmd-Enter)">
            Run
          </button>
          <button type="button" onClick={stop} disabled={!running} title="Stop (Esc)">
            Stop
          </button>
          <button type="button" onClick={format} disabled={!lint.valid} title="Rewrite the query tidily (keywords in capitals, defaults left out)">
            Format
          </button>
          <button type="button" aria-pressed={!!state.builder} onClick={() => nav({ builder: !state.builder }, true)}>
            Builder
          </button>
          {saved && saved.owner === user && saved.query !== q && (
            <button type="button" onClick={update}>
              Save changes
            </button>
          )}
          <button type="button" onClick={() => setSaving(saved ? `${saved.name} (copy)` : '')} disabled={!q.trim()}>
            {saved ? 'Save as…' : 'Save…'}
          </button>
        </div>
      </div>
      {lint.valid?.warnings?.length ? (
        <ul class="lint warn" aria-label="Warnings about the query">
          {lint.valid.warnings.map((w) => (
            <li>
              {w.message}
              {w.fix && <span class="fix"> {w.fix}</span>}
            </li>
          ))}
        </ul>
      ) : null}
      {lint.errors.length > 0 && (
        <ul class="lint" aria-label="Errors in the query">
          {lint.errors.map((e) => (
            <li>
              <strong>
                Line {e.line}, column {e.column}:
              </strong>{' '}
              {e.message}
              {e.fix && <span class="fix"> Fix: {e.fix}</span>}
            </li>
          ))}
        </ul>
      )}
      {saving != null && (
        // the name field is uncontrolled (defaultValue): a render while it is typed in (a lint
        // result, the quota) must not put back the value it opened with
        <form
          class="save-form"
          onSubmit={(e) => {
            e.preventDefault();
            const name = (e.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
            if (name) save(name);
          }}
        >
          <label>
            Name <input name="name" aria-label="Name of the saved query" defaultValue={saving} required autoFocus />
          </label>
          <button type="submit" class="primary">
            Save
          </button>
          <button type="button" onClick={() => setSaving(null)}>
            Cancel
          </button>
        </form>
      )}
      {state.builder && <BuilderPanel query={q} fields={fields} onQuery={(text) => nav({ q: text }, true)} />}
      <SinksField sinks={sinks} onChange={setSinks} />
      <Problem text={problem} />
      <Notice text={problem ? null : notice} />
      {state.run && (
        <div class="progress" aria-label="Progress">
          {pct != null ? (
            <div class="bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(done ? 100 : pct)} aria-label="Time elapsed">
              <span style={{ transform: `scaleX(${(done ? 100 : pct) / 100})` }} />
            </div>
          ) : (
            <div class={'bar' + (running ? ' endless' : '')} aria-hidden="true">
              <span style={{ transform: `scaleX(${done ? 1 : 0})` }} />
            </div>
          )}
          <span class="stats">
            {stats.text}
            {running && !last ? ' · waiting for the first result' : ''}
          </span>
        </div>
      )}
      {last && (
        <Results
          results={results.current}
          version={version}
          view={state.view}
          chart={state.chart}
          metric={state.metric}
          scale={state.scale}
          w={state.w}
          keys={keys}
          exportId={state.run}
          onChange={(p) => nav({ ...p, ...('w' in p ? { w: p.w } : {}) }, !('w' in p))}
        />
      )}
      {!state.run && !q && (
        <section class="welcome">
          <p>
            Write a BQL query above (completion knows the stream's fields: Ctrl-Space), or open the <strong>Builder</strong>. Run it with <kbd>Ctrl</kbd>/<kbd>⌘</kbd>+<kbd>Enter</kbd>; results arrive as the stream does.
          </p>
          <p>Try one of these (a click puts it in the editor, then Run):</p>
          <ul>
            {[
              'SELECT device, COUNT(*) AS n FROM STREAM(30s, TIME) GROUP BY device WINDOWING TUMBLING(2s, TIME)',
              'SELECT COUNT(*) AS n, AVG(latency_ms) AS latency FROM STREAM(60s, TIME) WINDOWING EVERY(1s, TIME, FIRST, 5s, TIME)',
              'SELECT TOP(10, browser_name) AS n FROM STREAM(10s, TIME)',
              'SELECT QUANTILE(duration, LINEAR, 11) FROM STREAM(5s, TIME)',
              "SELECT id, status, device FROM STREAM(30s, TIME) WHERE status >= 500 LIMIT 20",
            ].map((example) => (
              <li>
                <button type="button" class="link mono" onClick={() => nav({ q: example })}>
                  {example}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </main>
  );
}
