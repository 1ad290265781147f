/**
 * A chart drawn by uPlot from {@link ChartData}: lines over windows, bars over categories, a
 * histogram, a CDF or a quantile curve. The plot is made once per kind of chart and fed new data
 * as results arrive, so a live chart costs one redraw per animation frame at most.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { ChartData } from '../results/shape';

const PALETTE = ['#2f6fde', '#e0672c', '#2a9d5c', '#b23dbd', '#c9a000', '#1aa3b8', '#d1344a', '#6b6b6b', '#7a5af0', '#8c564b'];

function toAligned(d: ChartData): uPlot.AlignedData {
  const x = 'categories' in d ? d.categories.map((_, i) => i) : d.x;
  return [x, ...d.series.map((s) => s.values)] as uPlot.AlignedData;
}

function signature(d: ChartData): string {
  return d.type + '|' + d.series.map((s) => s.name).join('|') + ('categories' in d ? '|' + d.categories.length : '');
}

function cssVar(name: string, fallback: string): string {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

function options(d: ChartData, width: number, labels: { current: string[] }): uPlot.Options {
  const bars = d.type === 'bars' || d.type === 'histogram';
  const fg = cssVar('--fg-muted', '#555');
  const grid = cssVar('--grid', '#ddd');
  const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } };
  const barPaths = uPlot.paths.bars!({ size: [0.8 / Math.max(1, d.series.length), 60], gap: 1 });
  return {
    width,
    height: 300,
    legend: { show: true, live: true },
    cursor: { drag: { x: !bars, y: false } },
    scales: { x: bars ? { time: false, range: (_u, min, max) => [min - 0.5, max + 0.5] } : { time: false } },
    axes: [
      {
        ...axis,
        label: 'categories' in d ? undefined : d.xLabel,
        ...(bars
          ? {
              splits: (_u: uPlot) => labels.current.map((_, i) => i),
              values: (_u: uPlot, splits: number[]) => splits.map((i) => truncate(labels.current[i] ?? '', 18)),
              rotate: labels.current.length > 6 ? -35 : 0,
              size: labels.current.length > 6 ? 90 : 40,
              gap: 4,
            }
          : { values: (_u: uPlot, splits: number[]) => splits.map(compact) }),
      },
      { ...axis, size: 60, values: (_u: uPlot, splits: number[]) => splits.map(compact) },
    ],
    series: [
      {
        label: 'categories' in d ? d.categoryLabel : d.xLabel,
        value: (_u, v) => (v == null ? '' : 'categories' in d ? (labels.current[v] ?? '') : String(v)),
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

const compactFormat = new Intl.NumberFormat(undefined, { notation: 'compact', maximumFractionDigits: 2 });

/** 12,345,678 as 12M, so that axis labels stay short. */
function compact(v: number): string {
  return Math.abs(v) >= 10_000 ? compactFormat.format(v) : String(+v.toPrecision(6));
}

function truncate(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

export function Chart({ data, title }: { data: ChartData; title: string }) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const sig = useRef('');
  const labels = useRef<string[]>([]);

  useEffect(() => {
    const el = host.current!;
    labels.current = 'categories' in data ? data.categories : [];
    const s = signature(data);
    if (!plot.current || sig.current !== s) {
      plot.current?.destroy();
      plot.current = new uPlot(options(data, Math.max(200, el.clientWidth), labels), toAligned(data), el);
      sig.current = s;
    } else {
      plot.current.setData(toAligned(data));
    }
  }, [data]);

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
