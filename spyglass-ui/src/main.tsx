/** The app: pages by URL, the token prompt, the caller's quota, and the shortcuts. */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, QueryInfo, Quota, Schema, api, getToken, onUnauthorized, setToken, tokenRemembered } from './api';
import { SocketState, live } from './live';
import { AlertsPage } from './pages/AlertsPage';
import { HistoryPage } from './pages/HistoryPage';
import { QueryPage } from './pages/QueryPage';
import { RunningPage } from './pages/RunningPage';
import { SavedPage } from './pages/SavedPage';
import { SchemaPage } from './pages/SchemaPage';
import { StandingPage } from './pages/StandingPage';
import { QueryState, Route, formatRoute, parseRoute } from './route';
import './style.css';

const SHORTCUTS: [string, string][] = [
  ['Ctrl/⌘ + Enter', 'Run the query'],
  ['Esc', 'Stop the running query'],
  ['Ctrl + Space', 'Complete keywords, functions and fields'],
  ['[ and ]', 'Earlier and later window'],
  ['?', 'This list'],
];

const NAV: [Route['page'], string][] = [
  ['query', 'Query'],
  ['running', 'Running'],
  ['saved', 'Saved'],
  ['history', 'History'],
  ['schema', 'Schema'],
  ['standing', 'Standing'],
  ['alerts', 'Alerts'],
];

function App() {
  const [route, setRoute] = useState<Route>(() => parseRoute(location.hash));
  const [schema, setSchema] = useState<Schema | null>(null);
  const [schemaProblem, setSchemaProblem] = useState<string | null>(null);
  const [quota, setQuota] = useState<Quota | null>(null);
  const [asking, setAsking] = useState(false);
  // the token sent was refused (not merely missing)
  const [rejected, setRejected] = useState(false);
  // whether the service meters (GET /api/standing-queries answers 404 otherwise)
  const [metering, setMetering] = useState(false);
  const [socket, setSocket] = useState<SocketState>(live.state);
  const [help, setHelp] = useState(false);
  const [reload, setReload] = useState(0);
  const tokenDialog = useRef<HTMLDialogElement>(null);
  const helpDialog = useRef<HTMLDialogElement>(null);
  const pendingUrl = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    const f = () => setRoute(parseRoute(location.hash));
    window.addEventListener('hashchange', f);
    onUnauthorized((wasRejected) => {
      // a later 401 without a token (the refused one was dropped) does not take the message away
      setRejected((r) => r || wasRejected);
      setAsking(true);
    });
    const stopListening = live.onState(setSocket);
    return () => {
      window.removeEventListener('hashchange', f);
      stopListening();
    };
  }, []);

  useEffect(() => {
    api('GET', '/api/standing-queries')
      .then(() => setMetering(true))
      .catch(() => setMetering(false));
  }, [reload]);

  const nav = (next: Route, replace = false) => {
    // typing replaces the URL at most every 250 ms (browsers throttle history updates)
    clearTimeout(pendingUrl.current);
    const write = () => {
      const hash = formatRoute(next);
      if (hash !== location.hash) history[replace ? 'replaceState' : 'pushState'](null, '', hash);
    };
    if (replace) pendingUrl.current = setTimeout(write, 250);
    else write();
    setRoute(next);
  };

  // the stream's fields, for completion, the builder and the schema page
  useEffect(() => {
    let t: ReturnType<typeof setTimeout>;
    const load = () =>
      api<Schema>('GET', '/api/schema')
        .then((s) => {
          setSchema(s);
          setSchemaProblem(null);
          t = setTimeout(load, s.fields.length ? 30_000 : 2_000);
        })
        .catch((e: ApiError) => setSchemaProblem(e.plain()));
    load();
    return () => clearTimeout(t);
  }, [reload]);

  const refreshQuota = () =>
    api<{ queries: QueryInfo[]; quota: Quota }>('GET', '/api/queries')
      .then((r) => setQuota(r.quota))
      .catch(() => undefined);
  useEffect(() => {
    refreshQuota();
    const t = setInterval(refreshQuota, 5000);
    return () => clearInterval(t);
  }, [reload]);

  useEffect(() => {
    const d = tokenDialog.current!;
    if (asking && !d.open) {
      d.querySelector('form')?.reset(); // not the dots of a refused token
      d.showModal();
    }
    if (!asking && d.open) d.close();
  }, [asking]);
  useEffect(() => {
    const d = helpDialog.current!;
    if (help && !d.open) d.showModal();
    if (!help && d.open) d.close();
  }, [help]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key === '?' && !t.closest('input, textarea, select, .cm-editor')) {
        e.preventDefault();
        setHelp((h) => !h);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const queryState: QueryState & { saved?: string } = route.page === 'query' ? route : { q: '', view: 'table' };
  const page = route.page;
  const full = quota && quota.running >= quota.maxQueriesPerUser;

  return (
    <>
      <header class="top">
        <a class="brand" href="#/query" aria-label="Spyglass: new query">
          <svg viewBox="0 0 16 16" width="20" height="20" aria-hidden="true">
            <circle cx="6" cy="6" r="4.5" fill="none" stroke="currentColor" stroke-width="2" />
            <path d="M9.5 9.5l5 5" stroke="currentColor" stroke-width="2.5" />
          </svg>
          Spyglass
        </a>
        <nav aria-label="Pages">
          {NAV.filter(([p]) => (p !== 'standing' && p !== 'alerts') || metering || page === p).map(([p, label]) => (
            <a href={p === 'query' && route.page === 'query' ? formatRoute(route) : '#/' + p} aria-current={page === p ? 'page' : undefined}>
              {label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        {socket === 'reconnecting' && (
          <span class="quota full" role="status">
            Reconnecting to the service…
          </span>
        )}
        {quota && (
          <span class={'quota' + (full ? ' full' : '')} title={`The service runs ${quota.runningAll} of at most ${quota.maxQueries} queries`}>
            {quota.user}: {quota.running} of {quota.maxQueriesPerUser} running
          </span>
        )}
        {getToken() && (
          <button type="button" class="link" onClick={() => setAsking(true)}>
            Token
          </button>
        )}
        <button type="button" class="icon" aria-label="Keyboard shortcuts" onClick={() => setHelp(true)}>
          ?
        </button>
      </header>
      {page === 'query' && (
        <QueryPage
          key={reload}
          state={queryState}
          nav={(p, replace) => nav({ ...queryState, ...p, page: 'query' } as Route, replace)}
          fields={schema?.fields ?? []}
          user={quota?.user ?? null}
          onQueriesChanged={refreshQuota}
        />
      )}
      {page === 'running' && <RunningPage key={reload} onQueriesChanged={refreshQuota} alerts={metering} />}
      {page === 'saved' && <SavedPage key={reload} />}
      {page === 'history' && <HistoryPage key={reload} />}
      {page === 'schema' && <SchemaPage schema={schema} problem={schemaProblem} />}
      {page === 'standing' && (
        <StandingPage key={reload} name={route.page === 'standing' ? route.name : undefined} fields={schema?.fields ?? []} quota={quota} />
      )}
      {route.page === 'alerts' && (
        <AlertsPage key={reload} name={route.name} create={route.create} q={route.q} fields={schema?.fields ?? []} quota={quota} />
      )}
      <dialog ref={tokenDialog} aria-labelledby="token-title" onClose={() => (setAsking(false), setRejected(false))}>
        <form
          method="dialog"
          onSubmit={(e) => {
            const form = e.currentTarget.elements;
            const v = (form.namedItem('token') as HTMLInputElement).value.trim();
            setToken(v || null, (form.namedItem('remember') as HTMLInputElement).checked);
            setRejected(false);
            setAsking(false);
            setReload((r) => r + 1);
            if (page !== 'query') setRoute(parseRoute(location.hash));
          }}
        >
          <h2 id="token-title">This Spyglass needs a token</h2>
          {rejected && (
            <p class="error" role="alert">
              That token was not accepted. Check it against the service's tokens file, or ask whoever runs the service for yours.
            </p>
          )}
          <p>Enter a token from the service's tokens file. It is kept for this tab until you close it, unless you ask to remember it.</p>
          <label>
            Token <input name="token" type="password" autoComplete="off" aria-label="Token" required autoFocus />
          </label>
          <label class="check">
            <input name="remember" type="checkbox" defaultChecked={tokenRemembered()} /> Remember on this browser
          </label>
          <div class="actions">
            <button type="submit" class="primary">
              Use this token
            </button>
          </div>
        </form>
      </dialog>
      <dialog ref={helpDialog} aria-labelledby="help-title" onClose={() => setHelp(false)}>
        <h2 id="help-title">Keyboard shortcuts</h2>
        <table class="shortcuts">
          <tbody>
            {SHORTCUTS.map(([k, v]) => (
              <tr>
                <th scope="row">
                  <kbd>{k}</kbd>
                </th>
                <td>{v}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <form method="dialog" class="actions">
          <button type="submit" class="primary">
            Close
          </button>
        </form>
      </dialog>
    </>
  );
}

render(<App />, document.getElementById('app')!);
