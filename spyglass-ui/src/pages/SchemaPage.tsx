/** The live stream's fields: types, how often they appear, example values. */
import { useState } from 'preact/hooks';
import type { Schema } from '../api';
import { fieldRef } from '../bql/builder';
import { formatRoute } from '../route';
import { DataTable } from '../ui/DataTable';
import { Problem } from '../ui/Messages';

export function SchemaPage({ schema, problem }: { schema: Schema | null; problem: string | null }) {
  const [filter, setFilter] = useState('');
  const fields = (schema?.fields ?? []).filter((f) => f.path.toLowerCase().includes(filter.toLowerCase()));
  return (
    <main class="page">
      <h1>Schema of the stream</h1>
      <Problem text={problem} />
      {schema && (
        <p class="muted">
          Inferred live from {schema.records.toLocaleString()} records{schema.sampled ? ` (sampled ${schema.sampled})` : ''}: {schema.fields.length} fields.
        </p>
      )}
      <label>
        Find a field <input type="search" aria-label="Find a field" value={filter} onInput={(e) => setFilter((e.target as HTMLInputElement).value)} />
      </label>
      <DataTable
        kind="schema"
        headings={['Field', 'Types', 'In records', 'Examples']}
        items={fields}
        row={(f) => (
          <tr>
            <td class="mono">
              <a href={formatRoute({ page: 'query', q: `SELECT ${fieldRef(f.path)} FROM STREAM(10s, TIME) WHERE ${fieldRef(f.path)} IS NOT NULL LIMIT 20`, view: 'table' })} title="Query this field">
                {f.path}
              </a>
            </td>
            <td>{f.types.join(' | ')}</td>
            <td class="num">
              <div class="bar small" aria-hidden="true">
                <span style={{ transform: `scaleX(${f.share})` }} />
              </div>
              {(f.share * 100).toFixed(f.share < 0.1 ? 1 : 0)}%
            </td>
            <td class="mono examples">{f.examples.map((e) => JSON.stringify(e)).join(', ')}</td>
          </tr>
        )}
      />
    </main>
  );
}
