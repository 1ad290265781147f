/**
 * BQL in CodeMirror: highlighting (lang-sql's tokenizer with BQL's words), completion of keywords,
 * functions and the live stream's fields with their types, and lint from the server's validator.
 */
import { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { SQLDialect } from '@codemirror/lang-sql';
import { HighlightStyle, LanguageSupport, syntaxHighlighting } from '@codemirror/language';
import { Diagnostic, linter } from '@codemirror/lint';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { ApiError, BqlError, SchemaField, Validated, api } from '../api';
import { FUNCTIONS, KEYWORDS, TYPES } from './words';

const dialect = SQLDialect.define({
  keywords: KEYWORDS.join(' ').toLowerCase(),
  builtin: FUNCTIONS.map((f) => f.name).join(' ').toLowerCase(),
  types: TYPES.join(' ').toLowerCase(),
  identifierQuotes: '"',
  doubleQuotedStrings: false,
  backslashEscapes: false,
  hashComments: false,
  slashComments: false,
  operatorChars: '*+-%<>!=/:',
});

const style = HighlightStyle.define([
  { tag: tags.keyword, class: 'tok-keyword' },
  { tag: [tags.standard(tags.name), tags.typeName], class: 'tok-builtin' },
  { tag: tags.string, class: 'tok-string' },
  { tag: [tags.number, tags.bool, tags.null], class: 'tok-number' },
  { tag: tags.special(tags.string), class: 'tok-name' },
  { tag: tags.operator, class: 'tok-operator' },
  { tag: tags.comment, class: 'tok-comment' },
]);

export function bqlLanguage(): LanguageSupport {
  return new LanguageSupport(dialect.language, [syntaxHighlighting(style)]);
}

function fieldDetail(f: SchemaField): string {
  return f.types.join(' | ') + ` · ${Math.round(f.share * 100)}%`;
}

/** Completion of keywords, functions and fields; {@code fields} is read on each completion. */
export function bqlCompletion(fields: () => readonly SchemaField[]) {
  const words: Completion[] = [
    ...KEYWORDS.map((k) => ({ label: k, type: 'keyword', boost: -1 })),
    ...FUNCTIONS.map((f) => ({
      label: f.name,
      type: 'function',
      detail: f.signature,
      info: f.info,
      apply: f.name === 'NOW' ? 'NOW()' : f.name + '(',
    })),
  ];
  return (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/[\w.]+/);
    if (!word && !ctx.explicit) return null;
    const from = word ? word.from : ctx.pos;
    const text = word ? word.text : '';
    const inQuotes = /'[^']*$/.test(ctx.state.sliceDoc(Math.max(0, from - 200), from).replace(/'[^']*'/g, ''));
    if (inQuotes) return null;
    const fieldOptions: Completion[] = fields().map((f) => ({
      label: f.path,
      type: 'variable',
      detail: fieldDetail(f),
      info: f.examples.length ? 'e.g. ' + f.examples.slice(0, 3).map((e) => JSON.stringify(e)).join(', ') : undefined,
      boost: 1,
    }));
    // a typo matches nothing by its letters: offer the close names as "did you mean"
    const typos: Completion[] = closeFields(text, fields()).map((path, i) => ({
      label: text,
      displayLabel: path,
      apply: path,
      type: 'variable',
      detail: 'did you mean?',
      boost: 2 - i / 10,
    }));
    const options = text.includes('.') ? [...typos, ...fieldOptions] : [...typos, ...fieldOptions, ...words];
    return { from, options, validFor: /^[\w.]*$/ };
  };
}

/** The edit distance between two names. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length];
}

/**
 * Fields whose path is a likely typo of {@code text} (within an edit distance of a third of its
 * length, at least 1), closest first, leaving out those {@code text} begins or equals: those the
 * editor's own matching offers already.
 */
export function closeFields(text: string, fields: readonly SchemaField[]): string[] {
  if (text.length < 3) return [];
  const lower = text.toLowerCase();
  const limit = Math.max(1, Math.floor(text.length / 3));
  return fields
    .map((f) => ({ path: f.path, d: distance(lower, f.path.toLowerCase()) }))
    .filter((c) => c.d > 0 && c.d <= limit && !c.path.toLowerCase().startsWith(lower))
    .sort((a, b) => a.d - b.d || a.path.localeCompare(b.path))
    .slice(0, 3)
    .map((c) => c.path);
}

/**
 * The UTF-16 offset (the editor's unit) of a code point offset (the API's unit: 🚀 is one code point
 * and two UTF-16 units) into {@code text}, from UTF-16 offset {@code base}.
 */
export function utf16Offset(text: string, codePoints: number, base = 0): number {
  let i = base;
  for (let n = 0; n < codePoints && i < text.length; n++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < text.length ? 2 : 1;
  }
  return i;
}

/** Where a field is first named in the query (outside quotes), to mark a warning about it. */
export function fieldRange(doc: string, field: string): { from: number; to: number } {
  const unquoted = doc.replace(/'(?:[^']|'')*'/g, (m) => ' '.repeat(m.length));
  const escaped = field.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`(^|[^\\w.])(${escaped})(?![\\w])`).exec(unquoted);
  if (!m) return { from: 0, to: 0 };
  const from = m.index + m[1].length;
  return { from, to: from + field.length };
}

/** Where an error of the server's validator stands in the editor's text (UTF-16 offsets). */
export function errorRange(doc: string, e: BqlError): { from: number; to: number } {
  const len = doc.length;
  let from: number;
  let to: number | null = null;
  if (typeof e.start === 'number') {
    from = utf16Offset(doc, e.start);
    if (typeof e.end === 'number') to = utf16Offset(doc, e.end - e.start, from);
  } else {
    const lines = doc.split('\n');
    from = 0;
    for (let i = 0; i < Math.min(e.line - 1, lines.length); i++) from += lines[i].length + 1;
    from = utf16Offset(doc, Math.max(0, e.column - 1), from);
  }
  from = Math.max(0, Math.min(from, len));
  to = to == null ? from : Math.min(Math.max(to, 0), len);
  if (to <= from) {
    // an empty span: underline the word there, or the character before the end
    const m = /^[\w.]+/.exec(doc.slice(from));
    to = m ? from + m[0].length : Math.min(len, from + 1);
    if (to === from && from > 0) from--;
  }
  return { from, to };
}

/**
 * Lint from POST /api/validate, debounced: errors underlined at their place with the fix shown.
 * {@code onResult} hears the canonical form of a valid query, or the errors.
 */
export function bqlLinter(onResult: (v: Validated | null, errors: BqlError[]) => void, delayMs = 350) {
  return linter(
    async (view: EditorView): Promise<Diagnostic[]> => {
      const doc = view.state.doc.toString();
      if (!doc.trim()) {
        onResult(null, []);
        return [];
      }
      try {
        const v = await api<Validated>('POST', '/api/validate', { query: doc });
        if (view.state.doc.toString() !== doc) return [];
        onResult(v, []);
        return (v.warnings ?? []).map((w) => ({
          ...fieldRange(doc, w.field),
          severity: 'warning' as const,
          message: w.message + (w.fix ? `\n${w.fix}` : ''),
        }));
      } catch (e) {
        if (!(e instanceof ApiError) || !e.errors.length) return [];
        if (view.state.doc.toString() !== doc) return [];
        onResult(null, e.errors);
        return e.errors.map((err) => ({
          ...errorRange(doc, err),
          severity: 'error' as const,
          message: err.message + (err.fix ? `\nFix: ${err.fix}` : ''),
          source: `line ${err.line}, column ${err.column}`,
        }));
      }
    },
    { delay: delayMs },
  );
}
