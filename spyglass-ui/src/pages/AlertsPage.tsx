/**
 * Alerts on standing queries (docs/alerts.md): the list with each alert's state, an alert's
 * history of fired and resolved events, mute and unmute, delete, and a form to define one, on a
 * standing query or on a query (from a running query: it becomes a standing query of the alert's
 * name). Shown only when the service meters (GET /api/alerts answers 404 otherwise).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, Quota, SchemaField, api, plainError } from '../api';
import { asStanding } from '../bql/shape';
import { formatRoute } from '../route';
import { DataTable } from '../ui/DataTable';
import { Editor } from '../ui/Editor';
import { Notice, Problem } from '../ui/Messages';
import { useRepeatedRead } from '../ui/repeat';
import type { Standing } from './StandingPage';

export interface Alert {
  name: string;
  standingQuery: string;
  ownsQuery: boolean;
  owner: string;
  created: number;
  state: 'ok' | 'firing' | 'muted';
  firing: Record<string, string>[];
  lastWindow: { start: number; end: number } | null;
  mutedUntil?: number;
  conditionText: string;
  format: 'json' | 'alertmanager';
  quietPeriodMs: number;
  labels: Record<string, string>;
  sink: Record<string, string>;
  delivery: { delivered: number; pending: number; quiet: number; muted: number; dropped: number; failedAttempts: number; lastError?: string };
  error?: string;
}

export interface AlertEvent {
  key: string;
  state: 'firing' | 'resolved';
  group: Record<string, string>;
  window: { start: number; end: number };
  values: Record<string, unknown>;
  time: number;
  delivery: 'pending' | 'delivered' | 'quiet' | 'muted';
  delivered: boolean;
  attempts: number;
  lastError?: string;
}

/** How often the list and the history shown are read again. */
const REFRESH_MS = 5_000;

const when = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** A group's labels as a person reads them: org=acme, region=eu. */
function labelsText(labels: Record<string, string>): string {
  const parts = Object.entries(labels).map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(', ') : '(all)';
}

function sinkText(sink: Record<string, string>): string {
  return `${sink.type ?? '?'} ${sink.url ?? sink.path ?? sink.topic ?? ''}`.trim();
}

function stateText(a: Alert): string {
  if (a.state === 'muted') return `muted until ${when.format(a.mutedUntil!)}`;
  if (a.state === 'firing') return `firing: ${a.firing.map(labelsText).join('; ')}`;
  return 'ok';
}

export function AlertsPage({
  name,
  create,
  q,
  fields,
  quota,
}: {
  name?: string;
  create?: boolean;
  q?: string;
  fields: readonly SchemaField[];
  quota: Quota | null;
}) {
  const [list, setList] = useState<Alert[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [off, setOff] = useState<string | null>(null);
  const [version, setVersion] = useState(0);

  useRepeatedRead(
    (wanted) =>
      api<{ alerts: Alert[] }>('GET', '/api/alerts')
        .then((r) => {
          if (!wanted()) return;
          setList(r.alerts);
          setOff(null);
        })
        .catch((e: ApiError) => wanted() && (e.status === 404 ? setOff(e.plain()) : setProblem(e.plain()))),
    REFRESH_MS,
    [version],
  );

  const act = async (f: () => Promise<unknown>) => {
    try {
      await f();
      setProblem(null);
      setVersion((v) => v + 1);
    } catch (e) {
      setProblem(plainError(e));
    }
  };
  const path = (a: Alert) => `/api/alerts/${encodeURIComponent(a.name)}`;
  const mute = (a: Alert) => act(() => api('POST', path(a) + '/mute', { for: '1h' }));
  const unmute = (a: Alert) => act(() => api('POST', path(a) + '/unmute'));
  const remove = (a: Alert) => {
    const also = a.ownsQuery ? ` Its standing query ${a.standingQuery}, defined with it, goes too.` : '';
    if (!confirm(`Delete the alert “${a.name}”? Its history is forgotten.${also}`)) return;
    act(async () => {
      await api('DELETE', path(a));
      if (name === a.name) location.hash = formatRoute({ page: 'alerts' });
    });
  };

  const may = (a: Alert) => !!quota && (quota.admin || quota.user === a.owner);
  const chosen = list?.find((a) => a.name === name);
  return (
    <main class="page">
      <h1>Alerts</h1>
      <p class="muted">
        An alert watches the final windows of a standing query: a group fires when a window meets its condition and resolves when one no longer does, each
        event sent once per window to its sink.
      </p>
      <Notice text={off} />
      <Problem text={problem} />
      {list && list.length === 0 && !create && <p>No alert yet.</p>}
      {list && list.length > 0 && (
        <DataTable
          kind="alerts"
          headings={['Name', 'Standing query', 'Condition', 'State', 'Last window', 'Sink', 'Sent']}
          actions
          items={list}
          row={(a) => (
            <tr data-alert={a.name} aria-current={a.name === name ? 'true' : undefined}>
              <td>
                <a href={formatRoute({ page: 'alerts', name: a.name })}>{a.name}</a>
              </td>
              <td>
                <a href={formatRoute({ page: 'standing', name: a.standingQuery })}>{a.standingQuery}</a>
              </td>
              <td class="mono">{a.conditionText}</td>
              <td>
                <span class={'badge ' + a.state}>{stateText(a)}</span>
                {a.error && <div class="error">{a.error}</div>}
              </td>
              <td class="muted nowrap">{a.lastWindow ? when.format(a.lastWindow.end) : 'none yet'}</td>
              <td class="mono">
                {sinkText(a.sink)}
                <div class="muted">{a.format}</div>
              </td>
              <td class="num" title={`${a.delivery.pending} waiting, ${a.delivery.quiet} kept quiet, ${a.delivery.muted} muted, ${a.delivery.dropped} dropped`}>
                {a.delivery.delivered.toLocaleString()}
                {a.delivery.pending > 0 && <div class="warn">{a.delivery.pending} waiting</div>}
                {a.delivery.lastError && <div class="error">{a.delivery.lastError}</div>}
              </td>
              <td class="actions-cell">
                {may(a) &&
                  (a.state === 'muted' ? (
                    <button type="button" aria-label={`Unmute ${a.name}`} onClick={() => unmute(a)}>
                      Unmute
                    </button>
                  ) : (
                    <button type="button" aria-label={`Mute ${a.name} for an hour`} onClick={() => mute(a)}>
                      Mute 1 h
                    </button>
                  ))}
                {may(a) && (
                  <button type="button" aria-label={`Delete ${a.name}`} onClick={() => remove(a)}>
                    Delete
                  </button>
                )}
              </td>
            </tr>
          )}
        />
      )}
      {!off && !create && (
        <p>
          <a class="button" href={formatRoute({ page: 'alerts', create: true })}>
            New alert…
          </a>
        </p>
      )}
      {!off && create && <AlertForm initial={q ?? ''} fields={fields} onCreated={(n) => ((location.hash = formatRoute({ page: 'alerts', name: n })), setVersion((v) => v + 1))} />}
      {chosen && <History alert={chosen} version={version} />}
      {name && list && !chosen && (
        <p class="error" role="alert">
          No alert is named “{name}”: it may have been deleted.
        </p>
      )}
    </main>
  );
}

/** The form of a new alert: on a query (prefilled from a running one) or on a standing query. */
function AlertForm({ initial, fields, onCreated }: { initial: string; fields: readonly SchemaField[]; onCreated: (name: string) => void }) {
  const [on, setOn] = useState<'query' | 'standing'>(initial ? 'query' : 'standing');
  const [text, setText] = useState(asStanding(initial));
  const [standing, setStanding] = useState<Standing[]>([]);
  const [problem, setProblem] = useState<{ text: string; field: string | null } | null>(null);
  const [sinkType, setSinkType] = useState<'webhook' | 'file' | 'kafka'>('webhook');

  useEffect(() => {
    api<{ standingQueries: Standing[] }>('GET', '/api/standing-queries')
      .then((r) => {
        setStanding(r.standingQueries);
        if (!initial && r.standingQueries.length === 0) setOn('query');
      })
      .catch(() => undefined);
  }, []);

  const submit = async (form: HTMLFormElement) => {
    const v = (n: string) => ((form.elements.namedItem(n) as HTMLInputElement | HTMLSelectElement | null)?.value ?? '').trim();
    const name = v('name');
    const sinkField = sinkType === 'webhook' ? 'url' : sinkType === 'file' ? 'path' : 'topic';
    const labels: Record<string, string> = {};
    for (const part of v('labels').split(',')) {
      const [k, ...rest] = part.split('=');
      if (k.trim()) labels[k.trim()] = rest.join('=').trim();
    }
    const body: Record<string, unknown> = {
      name,
      condition: { having: v('having') },
      sink: { type: sinkType, [sinkField]: v('target') },
      format: v('format'),
      labels,
    };
    if (v('quiet')) body.quietPeriod = v('quiet');
    if (on === 'query') body.query = text;
    else body.standingQuery = v('standingQuery');
    try {
      await api('POST', '/api/alerts', body);
      setProblem(null);
      onCreated(name);
    } catch (e) {
      setProblem(e instanceof ApiError ? { text: e.plain(), field: e.field } : { text: String(e), field: null });
    }
  };

  return (
    <form
      class="alert-form"
      onSubmit={(e) => {
        e.preventDefault();
        submit(e.currentTarget);
      }}
    >
      <h2>New alert</h2>
      <p class="muted">
        Alerts run on the documents sent to the service (POST /api/ingest), as standing queries do: the query runs until deleted (STREAM(FOREVER)), and each of
        its final windows is checked once, across restarts.
      </p>
      {problem && (
        <p class="error" role="alert" data-field={problem.field ?? undefined}>
          {problem.field ? `${problem.field}: ` : ''}
          {problem.text}
        </p>
      )}
      <label>
        Name <input name="name" aria-label="Name of the alert" placeholder="orders-stalled" pattern="[A-Za-z0-9._\-]{1,100}" required autoFocus />
      </label>
      <fieldset>
        <legend>On</legend>
        <label>
          <input type="radio" name="on" checked={on === 'query'} onChange={() => setOn('query')} /> a query (it becomes a standing query of the alert's name)
        </label>
        <label>
          <input type="radio" name="on" checked={on === 'standing'} disabled={standing.length === 0} onChange={() => setOn('standing')} /> a standing query
        </label>
      </fieldset>
      {on === 'query' ? (
        <Editor value={text} onChange={setText} onRun={() => undefined} fields={() => fields} onValidated={() => undefined} />
      ) : (
        <label>
          Standing query{' '}
          <select name="standingQuery" aria-label="Standing query">
            {standing.map((s) => (
              <option value={s.name}>{s.name}</option>
            ))}
          </select>
        </label>
      )}
      <label>
        Condition{' '}
        <input
          name="having"
          class="mono"
          aria-label="Condition"
          aria-invalid={problem?.field?.startsWith('condition') ? 'true' : undefined}
          placeholder="n > 100 AND org != 'test'"
          required
        />
        <span class="muted"> a BQL expression over the window's columns, as after HAVING</span>
      </label>
      <fieldset>
        <legend>Sink</legend>
        <select aria-label="Sink type" value={sinkType} onChange={(e) => setSinkType((e.target as HTMLSelectElement).value as 'webhook' | 'file' | 'kafka')}>
          <option value="webhook">webhook</option>
          <option value="file">file</option>
          <option value="kafka">kafka</option>
        </select>{' '}
        <input
          name="target"
          class="mono"
          aria-label={sinkType === 'webhook' ? 'Webhook URL' : sinkType === 'file' ? 'File path' : 'Kafka topic'}
          placeholder={sinkType === 'webhook' ? 'https://alertmanager.example.com/api/v2/alerts' : sinkType === 'file' ? 'alerts.ndjson' : 'alerts'}
          aria-invalid={problem?.field?.startsWith('sink') ? 'true' : undefined}
          required
        />{' '}
        <select name="format" aria-label="Format">
          <option value="json">plain JSON</option>
          <option value="alertmanager">Alertmanager</option>
        </select>
      </fieldset>
      <label>
        Quiet period <input name="quiet" aria-label="Quiet period" placeholder="5m" size={6} />
        <span class="muted"> a group that fires again this soon after it resolved is recorded, not sent</span>
      </label>
      <label>
        Labels <input name="labels" aria-label="Labels" placeholder="severity=page, team=billing" />
      </label>
      <div class="actions">
        <button type="submit" class="primary">
          Create alert
        </button>
        <a class="button" href={formatRoute({ page: 'alerts' })}>
          Cancel
        </a>
      </div>
    </form>
  );
}

/** An alert's newest events, read again every 5 s. */
function History({ alert, version }: { alert: Alert; version: number }) {
  const [events, setEvents] = useState<AlertEvent[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useRepeatedRead(
    (wanted) =>
      api<Alert & { history: AlertEvent[] }>('GET', `/api/alerts/${encodeURIComponent(alert.name)}?limit=200`)
        .then((a) => {
          if (!wanted()) return;
          setEvents(a.history);
          setProblem(null);
        })
        .catch((e: ApiError) => wanted() && setProblem(e.plain())),
    REFRESH_MS,
    [alert.name, version],
  );

  return (
    <section class="report" aria-label={`History of ${alert.name}`}>
      <h2>History of {alert.name}</h2>
      <Problem text={problem} />
      {events && events.length === 0 && <p>Nothing fired yet: events appear as the standing query's windows become final.</p>}
      {events && events.length > 0 && (
        <DataTable
          kind="alert-history"
          headings={['Window', 'Event', 'Group', 'Values', 'Sent']}
          items={events}
          row={(e) => (
            <tr data-key={e.key}>
              <td class="nowrap">
                {when.format(e.window.start)} to {when.format(e.window.end)}
              </td>
              <td>
                <span class={'badge ' + e.state}>{e.state}</span>
              </td>
              <td>{labelsText(e.group)}</td>
              <td class="mono">{JSON.stringify(e.values)}</td>
              <td>
                {e.delivery === 'delivered' ? 'sent' : e.delivery === 'pending' ? `waiting (${e.attempts} attempts)` : e.delivery === 'quiet' ? 'kept quiet' : 'muted'}
                {e.lastError && <div class="error">{e.lastError}</div>}
              </td>
            </tr>
          )}
        />
      )}
    </section>
  );
}
