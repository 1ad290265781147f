/**
 * The query builder: fields, filters with operators by type, the kind of result, window and
 * duration. Every change writes BQL into the editor; a change in the editor is read back when the
 * builder can show it, and otherwise the builder says what it cannot show.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { SchemaField } from '../api';
import {
  AggFn,
  Builder,
  DistFn,
  Filter,
  Kind,
  Op,
  Points,
  emptyBuilder,
  literalFor,
  operatorsFor,
  toBql,
} from '../bql/builder';
import { readBuilder } from '../bql/reader';

export interface BuilderProps {
  query: string;
  fields: readonly SchemaField[];
  onQuery(q: string): void;
}

const KINDS: [Kind, string][] = [
  ['raw', 'Raw records'],
  ['group', 'Group by, with aggregates'],
  ['countDistinct', 'Count distinct'],
  ['distribution', 'Distribution'],
  ['top', 'Top K'],
];

export function BuilderPanel({ query, fields, onQuery }: BuilderProps) {
  const read = readBuilder(query);
  const [b, setB] = useState<Builder>(() => (read.ok ? read.builder : emptyBuilder()));
  const written = useRef<string | null>(null);
  const types = (path: string) => fields.find((f) => f.path === path)?.types ?? [];

  useEffect(() => {
    // the editor changed: read it back unless it is what the builder just wrote
    if (query === written.current) return;
    if (read.ok && toBql(read.builder) !== toBql(b)) setB(read.builder);
  }, [query]);

  const update = (next: Builder) => {
    setB(next);
    const q = toBql(next);
    written.current = q;
    onQuery(q);
  };
  const set = (p: Partial<Builder>) => update({ ...b, ...p });
  const blocked = !read.ok && query.trim() !== '' && query !== written.current;

  const fieldList = (
    <datalist id="schema-fields">
      {fields.map((f) => (
        <option value={f.path}>{f.types.join(' | ')}</option>
      ))}
    </datalist>
  );

  return (
    <section class="builder" aria-label="Query builder">
      {fieldList}
      {blocked && (
        <div class="notice" role="status">
          <p>
            The builder cannot show this query: {read.ok ? '' : read.reasons.join('; ')}. Edit it in the editor, or{' '}
            <button type="button" class="link" onClick={() => update(b)}>
              replace it with the builder's query
            </button>
            .
          </p>
        </div>
      )}
      <fieldset disabled={blocked}>
        <div class="row">
          <label>
            Result{' '}
            <select aria-label="Kind of result" value={b.kind} onChange={(e) => set({ kind: (e.target as HTMLSelectElement).value as Kind })}>
              {KINDS.map(([k, l]) => (
                <option value={k}>{l}</option>
              ))}
            </select>
          </label>
          <label>
            Duration (s){' '}
            <input
              type="number"
              min="1"
              aria-label="Duration in seconds"
              value={b.durationMs / 1000}
              onInput={(e) => {
                const v = Number((e.target as HTMLInputElement).value);
                if (v > 0) set({ durationMs: Math.round(v * 1000) });
              }}
            />
          </label>
          <label>
            Window{' '}
            <select
              aria-label="Window kind"
              value={b.window.type}
              onChange={(e) => {
                const t = (e.target as HTMLSelectElement).value as 'none' | 'tumbling' | 'additive';
                set({ window: t === 'none' ? { type: 'none' } : { type: t, ms: b.window.type === 'none' ? 5000 : b.window.ms } });
              }}
            >
              <option value="none">None: one result at the end</option>
              <option value="tumbling">Tumbling: each period alone</option>
              <option value="additive">Additive: everything so far</option>
            </select>
          </label>
          {b.window.type !== 'none' && (
            <label>
              every (s){' '}
              <input
                type="number"
                min="0.1"
                step="0.1"
                aria-label="Window period in seconds"
                value={b.window.ms / 1000}
                onInput={(e) => {
                  const v = Number((e.target as HTMLInputElement).value);
                  if (v > 0) set({ window: { type: (b.window as { type: 'tumbling' }).type, ms: Math.round(v * 1000) } });
                }}
              />
            </label>
          )}
          {(b.kind === 'raw' || b.kind === 'group') && (
            <label>
              Limit{' '}
              <input
                type="number"
                min="1"
                aria-label="Limit"
                value={b.limit ?? ''}
                placeholder="default"
                onInput={(e) => {
                  const v = (e.target as HTMLInputElement).value;
                  set({ limit: v ? Number(v) : null });
                }}
              />
            </label>
          )}
        </div>
        {b.kind !== 'distribution' && (
          <FieldPicker
            label={b.kind === 'raw' ? 'Fields (none: every field)' : b.kind === 'group' ? 'Group by' : b.kind === 'top' ? 'Most frequent values of' : 'Distinct values of'}
            value={b.fields}
            onChange={(f) => set({ fields: f })}
          />
        )}
        {b.kind === 'group' && <Aggregates b={b} set={set} />}
        {b.kind === 'countDistinct' && <AliasInput value={b.alias} onChange={(alias) => set({ alias })} />}
        {b.kind === 'top' && (
          <div class="row">
            <label>
              K{' '}
              <input type="number" min="1" max="1000" aria-label="K" value={b.topK} onInput={(e) => {
                  const v = Number((e.target as HTMLInputElement).value);
                  if (v >= 1) set({ topK: Math.round(v) });
                }} />
            </label>
            <label>
              At least{' '}
              <input
                type="number"
                min="1"
                aria-label="Minimum count"
                placeholder="any"
                value={b.topMinCount ?? ''}
                onInput={(e) => {
                  const v = (e.target as HTMLInputElement).value;
                  set({ topMinCount: v ? Number(v) : null });
                }}
              />
            </label>
            <AliasInput value={b.alias} onChange={(alias) => set({ alias })} />
          </div>
        )}
        {b.kind === 'distribution' && <Distribution b={b} set={set} />}
        <Filters filters={b.filters} types={types} onChange={(filters) => set({ filters })} />
      </fieldset>
    </section>
  );
}

function AliasInput({ value, onChange }: { value: string; onChange(v: string): void }) {
  return (
    <label>
      Column name{' '}
      <input type="text" aria-label="Column name" value={value} placeholder="(default)" onInput={(e) => onChange((e.target as HTMLInputElement).value.trim())} />
    </label>
  );
}

function FieldPicker({ label, value, onChange }: { label: string; value: string[]; onChange(v: string[]): void }) {
  const [draft, setDraft] = useState('');
  const add = () => {
    const f = draft.trim();
    if (f && !value.includes(f)) onChange([...value, f]);
    setDraft('');
  };
  return (
    <div class="row fields">
      <span class="label">{label}</span>
      {value.map((f) => (
        <span class="chip">
          {f}
          <button type="button" aria-label={`Remove ${f}`} onClick={() => onChange(value.filter((x) => x !== f))}>
            ×
          </button>
        </span>
      ))}
      <input
        type="text"
        list="schema-fields"
        aria-label={`Add a field to: ${label}`}
        placeholder="field"
        value={draft}
        onInput={(e) => setDraft((e.target as HTMLInputElement).value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            add();
          }
        }}
      />
      <button type="button" onClick={add}>
        Add
      </button>
    </div>
  );
}

function Aggregates({ b, set }: { b: Builder; set(p: Partial<Builder>): void }) {
  const change = (i: number, p: Partial<Builder['aggregates'][number]>) => set({ aggregates: b.aggregates.map((a, k) => (k === i ? { ...a, ...p } : a)) });
  return (
    <div class="rows">
      <span class="label">Aggregates</span>
      {b.aggregates.map((a, i) => (
        <div class="row">
          <select aria-label={`Aggregate ${i + 1} function`} value={a.fn} onChange={(e) => change(i, { fn: (e.target as HTMLSelectElement).value as AggFn })}>
            {['COUNT', 'SUM', 'AVG', 'MIN', 'MAX'].map((f) => (
              <option value={f}>{f}</option>
            ))}
          </select>
          {a.fn === 'COUNT' ? (
            <span>(*)</span>
          ) : (
            <input type="text" list="schema-fields" aria-label={`Aggregate ${i + 1} field`} placeholder="field" value={a.field} onInput={(e) => change(i, { field: (e.target as HTMLInputElement).value.trim() })} />
          )}
          <input type="text" aria-label={`Aggregate ${i + 1} name`} placeholder="name" value={a.alias} onInput={(e) => change(i, { alias: (e.target as HTMLInputElement).value.trim() })} />
          <button type="button" aria-label={`Remove aggregate ${i + 1}`} onClick={() => set({ aggregates: b.aggregates.filter((_, k) => k !== i) })}>
            ×
          </button>
        </div>
      ))}
      <button type="button" onClick={() => set({ aggregates: [...b.aggregates, { fn: 'AVG', field: '', alias: '' }] })}>
        Add aggregate
      </button>
    </div>
  );
}

function Distribution({ b, set }: { b: Builder; set(p: Partial<Builder>): void }) {
  const d = b.distribution;
  const change = (p: Partial<Builder['distribution']>) => set({ distribution: { ...d, ...p } });
  const hint = d.points === 'LINEAR' ? 'number of points' : d.points === 'REGION' ? 'start, end, step' : 'points, comma-separated';
  return (
    <div class="row">
      <select aria-label="Distribution" value={d.fn} onChange={(e) => change({ fn: (e.target as HTMLSelectElement).value as DistFn })}>
        <option value="QUANTILE">Quantiles</option>
        <option value="FREQ">Histogram (FREQ)</option>
        <option value="CUMFREQ">Cumulative (CUMFREQ)</option>
      </select>
      <label>
        of{' '}
        <input type="text" list="schema-fields" aria-label="Distribution field" placeholder="numeric field" value={d.field} onInput={(e) => change({ field: (e.target as HTMLInputElement).value.trim() })} />
      </label>
      <select aria-label="Points" value={d.points} onChange={(e) => change({ points: (e.target as HTMLSelectElement).value as Points })}>
        <option value="LINEAR">evenly spaced</option>
        <option value="REGION">a region</option>
        <option value="MANUAL">given points</option>
      </select>
      <input
        type="text"
        aria-label={`Points: ${hint}`}
        placeholder={hint}
        value={d.args.join(', ')}
        onInput={(e) =>
          change({
            args: (e.target as HTMLInputElement).value
              .split(',')
              .map((s) => Number(s.trim()))
              .filter((n) => Number.isFinite(n)),
          })
        }
      />
    </div>
  );
}

function Filters({ filters, types, onChange }: { filters: Filter[]; types(path: string): string[]; onChange(f: Filter[]): void }) {
  const change = (i: number, f: Filter) => onChange(filters.map((x, k) => (k === i ? f : x)));
  return (
    <div class="rows">
      <span class="label">Where (all of)</span>
      {filters.map((f, i) => {
        const t = types(f.field);
        const ops = operatorsFor(t);
        const text = f.values.map((v) => v.text).join(', ');
        return (
          <div class="row">
            <input type="text" list="schema-fields" aria-label={`Filter ${i + 1} field`} placeholder="field" value={f.field} onInput={(e) => change(i, { ...f, field: (e.target as HTMLInputElement).value.trim() })} />
            <select aria-label={`Filter ${i + 1} operator`} value={f.op} onChange={(e) => change(i, { ...f, op: (e.target as HTMLSelectElement).value as Op, values: (e.target as HTMLSelectElement).value.startsWith('IS') ? [] : f.values })}>
              {(ops.includes(f.op) ? ops : [f.op, ...ops]).map((o) => (
                <option value={o}>{o}</option>
              ))}
            </select>
            {!f.op.startsWith('IS') && (
              <input
                type="text"
                aria-label={`Filter ${i + 1} value`}
                placeholder={f.op.includes('IN') ? 'a, b, c' : t.length ? t.join(' | ') : 'value'}
                value={text}
                onInput={(e) => {
                  const v = (e.target as HTMLInputElement).value;
                  const parts = f.op.includes('IN') ? v.split(',').map((s) => s.trim()).filter(Boolean) : [v];
                  change(i, { ...f, values: parts.map((s) => literalFor(s, t)) });
                }}
              />
            )}
            <button type="button" aria-label={`Remove filter ${i + 1}`} onClick={() => onChange(filters.filter((_, k) => k !== i))}>
              ×
            </button>
          </div>
        );
      })}
      <button type="button" onClick={() => onChange([...filters, { field: '', op: '=', values: [] }])}>
        Add filter
      </button>
    </div>
  );
}
