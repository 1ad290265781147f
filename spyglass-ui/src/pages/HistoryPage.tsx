/** The caller's last queries. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, HistoryEntry, api } from '../api';
import { formatRoute } from '../route';
import { DataTable } from '../ui/DataTable';
import { Problem } from '../ui/Messages';

export function HistoryPage() {
  const [history, setHistory] = useState<HistoryEntry[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    api<{ history: HistoryEntry[] }>('GET', '/api/history?limit=200')
      .then((r) => setHistory(r.history))
      .catch((e: ApiError) => setProblem(e.plain()));
  }, []);
  return (
    <main class="page">
      <h1>History</h1>
      <Problem text={problem} />
      {history && history.length === 0 && <p>No queries yet.</p>}
      {history && history.length > 0 && (
        <DataTable
          kind="history"
          headings={['Submitted', 'Query', 'State', 'Results']}
          items={history}
          row={(h) => (
            <tr>
              <td class="muted nowrap">{new Date(h.submitted).toLocaleString()}</td>
              <td class="mono query-text">
                <a href={formatRoute({ page: 'query', q: h.query, view: 'table' })} title="Open in the editor">
                  {h.query}
                </a>
                {h.error && <div class="error">{h.error}</div>}
              </td>
              <td>{h.state}</td>
              <td class="num">{h.results}</td>
            </tr>
          )}
        />
      )}
    </main>
  );
}
