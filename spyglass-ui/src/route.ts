/**
 * The page's state in its URL (after #), so that a copied URL reopens what the person saw:
 * #/query?q=BQL&view=chart&chart=bars&w=3&run=ID, #/saved/ID (a shared saved query),
 * #/saved, #/history, #/running, #/schema, #/standing and #/standing/NAME (a standing query's report),
 * #/alerts, #/alerts/NAME (an alert's history) and #/alerts?new=1&q=BQL (a new alert on a query).
 */
export type View = 'table' | 'json' | 'chart' | 'pivot';
export const VIEWS: View[] = ['table', 'chart', 'pivot', 'json'];

export interface QueryState {
  /** The editor's text. */
  q: string;
  view: View;
  /** A chart type chosen over the default one for the result's shape. */
  chart?: string;
  /** The metric a chart or pivot shows, when there are several. */
  metric?: string;
  /** 'log' draws the chart on a log scale (quantile curves, histograms). */
  scale?: string;
  /** The window shown; absent follows the latest (live). */
  w?: number;
  /** The run whose results are shown. */
  run?: string;
  /** The builder is open. */
  builder?: boolean;
}

export type Route =
  | ({ page: 'query'; saved?: string } & QueryState)
  | { page: 'saved' }
  | { page: 'history' }
  | { page: 'running' }
  | { page: 'schema' }
  | { page: 'standing'; name?: string }
  | { page: 'alerts'; name?: string; create?: boolean; q?: string };

export const PAGES = ['query', 'running', 'saved', 'history', 'schema', 'standing', 'alerts'] as const;

export function parseRoute(hash: string): Route {
  const h = hash.replace(/^#/, '');
  const [path, query = ''] = h.split('?', 2);
  const p = new URLSearchParams(query);
  const parts = path.split('/').filter(Boolean);
  const page = parts[0] ?? 'query';
  if (page === 'saved' && !parts[1]) return { page: 'saved' };
  if (page === 'history' || page === 'running' || page === 'schema') return { page };
  if (page === 'standing') return parts[1] ? { page, name: decodeURIComponent(parts[1]) } : { page };
  if (page === 'alerts') {
    if (parts[1]) return { page, name: decodeURIComponent(parts[1]) };
    return p.get('new') === '1' ? { page, create: true, q: p.get('q') ?? '' } : { page };
  }
  const view = p.get('view');
  const w = p.get('w');
  const state: Route = {
    page: 'query',
    q: p.get('q') ?? '',
    view: VIEWS.includes(view as View) ? (view as View) : 'table',
  };
  if (page === 'saved' && parts[1]) state.saved = decodeURIComponent(parts[1]);
  if (p.get('chart')) state.chart = p.get('chart')!;
  if (p.get('metric')) state.metric = p.get('metric')!;
  if (p.get('scale') === 'log') state.scale = 'log';
  if (w && /^\d+$/.test(w)) state.w = Number(w);
  if (p.get('run')) state.run = p.get('run')!;
  if (p.get('builder') === '1') state.builder = true;
  return state;
}

export function formatRoute(r: Route): string {
  if (r.page === 'standing' && r.name) return '#/standing/' + encodeURIComponent(r.name);
  if (r.page === 'alerts' && r.name) return '#/alerts/' + encodeURIComponent(r.name);
  if (r.page === 'alerts' && r.create) {
    const p = new URLSearchParams({ new: '1' });
    if (r.q) p.set('q', r.q);
    return '#/alerts?' + p.toString().replace(/\+/g, '%20');
  }
  if (r.page !== 'query') return '#/' + r.page;
  const p = new URLSearchParams();
  if (r.q) p.set('q', r.q);
  if (r.view !== 'table') p.set('view', r.view);
  if (r.chart) p.set('chart', r.chart);
  if (r.metric) p.set('metric', r.metric);
  if (r.scale) p.set('scale', r.scale);
  if (r.w != null) p.set('w', String(r.w));
  if (r.run) p.set('run', r.run);
  if (r.builder) p.set('builder', '1');
  const s = p.toString().replace(/\+/g, '%20');
  const base = r.saved ? '#/saved/' + encodeURIComponent(r.saved) : '#/query';
  return s ? base + '?' + s : base;
}
