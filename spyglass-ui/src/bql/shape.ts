/**
 * What a query's text says about the shape of its results, so that the page picks its views from
 * the query rather than from the rows of one result (raw records with a few text columns look like
 * a grouping; a GROUP BY whose window came empty looks like nothing).
 */
import { LexError, Token, tokenize } from './lexer';
import { readBuilder } from './reader';
import { FUNCTIONS } from './words';

const AGGREGATES = new Set(FUNCTIONS.filter((f) => f.aggregate).map((f) => f.name));

/**
 * Whether the query selects raw records: no aggregate in its SELECT list (at any depth), no GROUP
 * BY, no SELECT DISTINCT. False when the text cannot be read.
 */
export function isRawQuery(text: string): boolean {
  let toks: Token[];
  try {
    toks = tokenize(text);
  } catch (e) {
    if (e instanceof LexError) return false;
    throw e;
  }
  const word = (t: Token | undefined) => (t && t.type === 'ident' ? t.value.toUpperCase() : '');
  if (word(toks[0]) !== 'SELECT') return false;
  let depth = 0;
  let i = 1;
  if (word(toks[1]) === 'DISTINCT') return false;
  for (; i < toks.length && toks[i].type !== 'eof'; i++) {
    const t = toks[i];
    if (t.type === 'punct' && t.value === '(') depth++;
    else if (t.type === 'punct' && t.value === ')') depth--;
    else if (depth === 0 && word(t) === 'FROM') break;
    else if (AGGREGATES.has(word(t)) && toks[i + 1]?.value === '(') return false;
  }
  if (i >= toks.length || toks[i].type === 'eof') return false; // no FROM: not a query to judge
  for (let j = i; j < toks.length - 1; j++) {
    if (word(toks[j]) === 'GROUP' && word(toks[j + 1]) === 'BY') return false;
  }
  return true;
}

/**
 * The grouping columns of the query's results when its text says: none (an empty list) for raw
 * records, the GROUP BY or TOP fields of a query the builder reads; undefined otherwise (the page
 * then guesses from the rows).
 */
export function queryKeys(text: string): string[] | undefined {
  if (isRawQuery(text)) return [];
  const read = readBuilder(text);
  if (read.ok && read.builder.kind === 'raw') return [];
  if (read.ok && (read.builder.kind === 'group' || read.builder.kind === 'top') && read.builder.fields.length) return read.builder.fields;
  return undefined;
}

/**
 * A query as an alert or a standing query runs it: without end, its stream {@code STREAM(FOREVER)}
 * (the first STREAM(...) of the text, whatever its duration).
 */
export function asStanding(text: string): string {
  return text.replace(/STREAM\s*\([^)]*\)/i, 'STREAM(FOREVER)');
}
