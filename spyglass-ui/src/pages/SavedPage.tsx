/** Saved queries: open, rename, delete, share. */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, Saved, api, plainError } from '../api';
import { DataTable } from '../ui/DataTable';
import { Problem } from '../ui/Messages';

export function SavedPage() {
  const [saved, setSaved] = useState<Saved[] | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<string | null>(null);

  const load = () =>
    api<{ saved: Saved[] }>('GET', '/api/saved')
      .then((r) => setSaved(r.saved))
      .catch((e: ApiError) => setProblem(e.plain()));
  useEffect(() => {
    load();
  }, []);

  const act = async (f: () => Promise<unknown>) => {
    try {
      await f();
      setProblem(null);
      await load();
    } catch (e) {
      setProblem(plainError(e));
    }
  };

  return (
    <main class="page">
      <h1>Saved queries</h1>
      <Problem text={problem} />
      {saved && saved.length === 0 && <p>No saved queries yet: write one on the Query page and press Save.</p>}
      {saved && saved.length > 0 && (
        <DataTable
          kind="saved"
          headings={['Name', 'Query', 'Saved']}
          actions
          items={saved}
          row={(s) => {
            const link = `${location.origin}${location.pathname}#/saved/${encodeURIComponent(s.id)}`;
            return (
              <tr data-saved-id={s.id}>
                <td>
                  {renaming === s.id ? (
                    <form
                      onSubmit={(e) => {
                        e.preventDefault();
                        const name = (e.currentTarget.elements.namedItem('name') as HTMLInputElement).value.trim();
                        if (name) act(() => api('PUT', `/api/saved/${encodeURIComponent(s.id)}`, { name })).then(() => setRenaming(null));
                      }}
                    >
                      <input name="name" aria-label={`New name for ${s.name}`} defaultValue={s.name} autoFocus required />
                      <button type="submit">OK</button>
                      <button type="button" onClick={() => setRenaming(null)}>
                        Cancel
                      </button>
                    </form>
                  ) : (
                    <a href={`#/saved/${encodeURIComponent(s.id)}`}>{s.name}</a>
                  )}
                </td>
                <td class="mono query-text">{s.query}</td>
                <td class="muted">{new Date(s.updated ?? s.created).toLocaleString()}</td>
                <td class="actions-cell">
                  <button type="button" onClick={() => setRenaming(s.id)} aria-label={`Rename ${s.name}`}>
                    Rename
                  </button>
                  <button type="button" onClick={() => navigator.clipboard?.writeText(link)} aria-label={`Copy the link to ${s.name}`} title={link}>
                    Copy link
                  </button>
                  <button
                    type="button"
                    aria-label={`Delete ${s.name}`}
                    onClick={() => confirm(`Delete the saved query “${s.name}”?`) && act(() => api('DELETE', `/api/saved/${encodeURIComponent(s.id)}`))}
                  >
                    Delete
                  </button>
                </td>
              </tr>
            );
          }}
        />
      )}
    </main>
  );
}
