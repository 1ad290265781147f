/**
 * The query page's Sinks field: targets that each result of the next run also goes to, at least
 * once (a webhook, a file under the service's sink folder, a Kafka topic). The service takes only
 * the hosts, folder and clusters its operator allows, and says which field it refuses.
 */
import type { SinkSpec, SinkType } from '../api';

/** A sink as the field edits it: a type and the one text it needs. */
export interface SinkDraft {
  type: SinkType;
  target: string;
}

const PLACEHOLDER: Record<SinkType, string> = {
  webhook: 'https://hooks.example.com/spyglass',
  file: 'results/my-query.ndjson (under the service’s sink folder)',
  kafka: 'topic (on the service’s Kafka)',
};

const LABEL: Record<SinkType, string> = { webhook: 'Webhook', file: 'File', kafka: 'Kafka topic' };

/** The API's form of a draft. */
export function sinkSpec(d: SinkDraft): SinkSpec {
  const target = d.target.trim();
  return d.type === 'webhook' ? { type: 'webhook', url: target } : d.type === 'file' ? { type: 'file', path: target } : { type: 'kafka', topic: target };
}

/** The drafts that name a target, as the API takes them. */
export function sinkSpecs(drafts: readonly SinkDraft[]): SinkSpec[] {
  return drafts.filter((d) => d.target.trim()).map(sinkSpec);
}

export function SinksField({ sinks, onChange }: { sinks: SinkDraft[]; onChange(s: SinkDraft[]): void }) {
  const set = (i: number, d: Partial<SinkDraft>) => onChange(sinks.map((s, k) => (k === i ? { ...s, ...d } : s)));
  const named = sinkSpecs(sinks).length;
  return (
    <details class="sinks-field" open={sinks.length > 0}>
      <summary>Sinks{named ? ` (${named})` : ''}</summary>
      <p class="muted">
        Each result of the next run also goes to these targets, at least once, as a JSON document keyed by query and window. The service sends only to
        the hosts, folder and Kafka its operator allows.
      </p>
      {sinks.map((s, i) => (
        <div class="row">
          <select aria-label={`Sink ${i + 1} type`} value={s.type} onChange={(e) => set(i, { type: (e.target as HTMLSelectElement).value as SinkType })}>
            {(Object.keys(LABEL) as SinkType[]).map((t) => (
              <option value={t}>{LABEL[t]}</option>
            ))}
          </select>
          <input
            class="mono"
            aria-label={`Sink ${i + 1} target`}
            placeholder={PLACEHOLDER[s.type]}
            value={s.target}
            onInput={(e) => set(i, { target: (e.target as HTMLInputElement).value })}
          />
          <button type="button" aria-label={`Remove sink ${i + 1}`} onClick={() => onChange(sinks.filter((_, k) => k !== i))}>
            Remove
          </button>
        </div>
      ))}
      <button type="button" onClick={() => onChange([...sinks, { type: 'webhook', target: '' }])}>
        Add sink
      </button>
    </details>
  );
}
