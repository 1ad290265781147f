/** The Running page's filter: queries whose text, owner or id hold every word typed. */
import type { QueryInfo } from '../api';

export function filterQueries(queries: readonly QueryInfo[], filter: string): QueryInfo[] {
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...queries];
  return queries.filter((q) => {
    const hay = `${q.query}\n${q.owner}\n${q.id}\n${q.state}`.toLowerCase();
    return words.every((w) => hay.includes(w));
  });
}
