/**
 * A chart drawn by uPlot from {@link ChartData}: lines over windows, bars over categories, a
 * histogram, a CDF or a quantile curve. The plot is made once per kind of chart and fed new data
 * as results arrive, so a live chart costs one redraw per animation frame at most.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { WINDOW_INCRS, labelStep, shortNumber } from '../results/axes';
import type { ChartData } from '../results/shape';

const PALETTE = ['#2f6fde', '#e0672c', '#2a9d5c', '#b23dbd', '#c9a000', '#1aa3b8', '#d1344a', '#6b6b6b', '#7a5af0', '#8c564b'];

function toAligned(d: ChartData, log: boolean): uPlot.AlignedData {
  const x = 'categories' in d ? d.categories.map((_, i) => i) : d.x;
  // a log scale has no place for 0 or less: those points are left out
  const ys = d.series.map((s) => (log ? s.values.map((v) => (v != null && v > 0 ? v : null)) : s.values));
  return [x, ...ys] as uPlot.AlignedData;
}

function signature(d: ChartData, log: boolean): string {
  return d.type + '|' + log + '|' + d.series.map((s) => s.name).join('|') + ('categories' in d ? '|' + d.categories.length : '');
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

interface Labels {
  /** Full names of the categories (legend). */
  full: string[];
  /** Names on the axis. */
  short: string[];
}

function options(d: ChartData, width: number, labels: { current: Labels }, log: boolean): uPlot.Options {
  const bars = d.type === 'bars' || d.type === 'histogram';
  const fg = cssVar('--fg-muted', '#555');
  const grid = cssVar('--grid', '#ddd');
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  const barPaths = uPlot.paths.bars!({ size: [0.8 / Math.max(1, d.series.length), 60], gap: 1 });
  const windows = d.type === 'lines' && d.xLabel === 'window';
  // a histogram's short ranges fit flat, one label every few bars; long names are turned
  const turned = d.type !== 'histogram' && (d.type === 'bars' ? d.categories.length > 6 : false);
  return {
    width,
    height: 300,
    legend: { show: true, live: true },
    cursor: { drag: { x: !bars, y: false } },
    scales: {
      x: bars ? { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } : { time: false },
      ...(log ? { y: { distr: 3, log: 10 } } : {}),
    },
    axes: [
      {
        ...axis,
        label: 'categories' in d ? undefined : d.xLabel,
        ...(bars
          ? {
              splits: (u: uPlot) => {
                const n = labels.current.short.length;
                const step = turned ? 1 : labelStep(n, u.bbox.width / (devicePixelRatio || 1), d.type === 'histogram' ? 72 : 96);
                const out: number[] = [];
                for (let i = 0; i < n; i += step) out.push(i);
                return out;
              },
              values: (_u: uPlot, splits: number[]) => splits.map((i) => truncate(labels.current.short[i] ?? '', 18)),
              rotate: turned ? -35 : 0,
              size: turned ? 90 : 40,
              gap: 4,
            }
          : windows
            ? { incrs: WINDOW_INCRS, values: (_u: uPlot, splits: number[]) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')) }
            : { values: (_u: uPlot, splits: number[]) => splits.map(compact) }),
      },
      {
        ...axis,
        size: 60,
        values: (_u: uPlot, splits: number[]) => splits.map(compact),
        // on a log scale, a line and a label per power of ten (not at 2, 3, ... 9 times it)
        ...(log ? { filter: decades, grid: { ...axis.grid, filter: decades }, ticks: { ...axis.ticks, filter: decades } } : {}),
      },
    ],
    series: [
      {
        label: 'categories' in d ? d.categoryLabel : d.xLabel,
        value: (_u, v) => (v == null ? '' : 'categories' in d ? (labels.current.full[v] ?? '') : String(v)),
      },
      ...d.series.map((s, i) => ({
        label: s.name,
        stroke: PALETTE[i % PALETTE.length],
        fill: bars ? PALETTE[i % PALETTE.length] + 'cc' : undefined,
        width: bars ? 0 : 2,
        paths: bars ? barPaths : undefined,
        points: { show: !bars && (d.type === 'quantile' || d.type === 'cdf' || ('x' in d && d.x.length < 30)) },
        spanGaps: false,
        // the legend shows the values under the cursor, and nothing (not "--") without one
        value: (_u: uPlot, v: number | null) => (v == null ? '' : v.toLocaleString()),
      })),
    ],
  };
}

/** The powers of ten among a log axis's splits (the others null: no line, no label). */
function decades(_u: uPlot, splits: number[]): (number | null)[] {
  return splits.map((v) => (v > 0 && Math.abs(Math.log10(v) - Math.round(Math.log10(v))) < 1e-9 ? v : null));
}

/** 12,345,678 as 12.3M, so that axis labels stay short. */
function compact(v: number | null): string {
  if (v == null) return '';
  return Math.abs(v) >= 10_000 ? shortNumber(v) : String(+v.toPrecision(6));
}

function truncate(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

export function Chart({ data, title, log = false }: { data: ChartData; title: string; log?: boolean }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const sig = useRef('');
  const labels = useRef<Labels>({ full: [], short: [] });

  useEffect(() => {
    const el = host.current!;
    labels.current = 'categories' in data ? { full: data.categories, short: data.short ?? data.categories } : { full: [], short: [] };
    const s = signature(data, log);
    if (!plot.current || sig.current !== s) {
      plot.current?.destroy();
      plot.current = new uPlot(options(data, Math.max(200, el.clientWidth), labels, log), toAligned(data, log), el);
      sig.current = s;
    } else {
      plot.current.setData(toAligned(data, log));
    }
    (el as any).__plot = plot.current; // for the browser tests: the axes' ticks
  }, [data, log]);

  useEffect(() => {
    const el = host.current!;
    const ro = new ResizeObserver(() => {
      if (plot.current) plot.current.setSize({ width: Math.max(200, el.clientWidth), height: 300 });
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, []);

  return <div class="chart" ref={host} role="img" aria-label={title} />;
}
