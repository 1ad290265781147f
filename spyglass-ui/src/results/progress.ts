/** The line under the editor that says how a run goes: time left (or "until stopped"), records, results. */
import { Progress, finiteDuration } from '../api';

/** 0.4 s, 3.2 s, 12 s. */
export function seconds(ms: number): string {
  return ms >= 10_000 ? `${Math.round(ms / 1000)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Whole seconds, for a time that only grows: 12 s, 1 min 5 s, 2 h 3 min. */
export function wholeSeconds(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

export interface RunState {
  running: boolean;
  /** The latest progress from the service, or null before the first. */
  progress: Progress | null;
  /** The duration /api/validate planned (-1 for a query that runs until stopped). */
  plannedMs?: number | null;
  /** What an ended run is called. */
  ended: string;
  results: number;
}

/**
 * The progress line, and the share of the duration elapsed (0-100), or null when the query runs
 * until stopped (no bar to fill).
 */
export function progressText(r: RunState): { text: string; percent: number | null } {
  const p = r.progress;
  const duration = p ? finiteDuration(p.durationMs) : finiteDuration(r.plannedMs);
  const elapsed = p?.elapsedMs ?? 0;
  let head: string;
  let percent: number | null = duration ? Math.min(100, (elapsed / duration) * 100) : null;
  if (!r.running) {
    head = r.ended;
    if (duration) percent = 100;
  } else if (!p) {
    head = 'running';
    if (duration) percent = 0;
  } else if (duration) {
    head = `${seconds(Math.max(0, duration - elapsed))} left`;
  } else {
    head = `running for ${wholeSeconds(elapsed)} · until stopped`;
  }
  const parts = [head];
  if (p) parts.push(`${p.recordsSeen.toLocaleString()} records seen`);
  parts.push(`${r.results.toLocaleString()} result${r.results === 1 ? '' : 's'}`);
  return { text: parts.join(' · '), percent };
}
