/** The caller's last queries. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, HistoryEntry, api } from '../api';
import { formatRoute } from '../route';

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
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
      {history && history.length === 0 && <p>No queries yet.</p>}
      {history && history.length > 0 && (
        <div class="table-wrap">
          <table class="data history">
            <thead>
              <tr>
                <th scope="col">Submitted</th>
                <th scope="col">Query</th>
                <th scope="col">State</th>
                <th scope="col">Results</th>
              </tr>
            </thead>
            <tbody>
              {history.map((h) => (
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
              ))}
            </tbody>
          </table>
        </div>
      )}
    </main>
  );
}
