/**
 * Splits BQL into tokens, as docs/bql.md's lexical rules say: case-insensitive keywords, plain and
 * double-quoted names, single-quoted strings with '' inside, numbers with an optional suffix
 * (65L, 1.5f, 30s). Used by the builder to read simple queries back; the server's parser is the
 * judge of what is valid.
 */

export type TokenType = 'ident' | 'qident' | 'string' | 'number' | 'op' | 'punct' | 'eof';

export interface Token {
  type: TokenType;
  /** The source text of the token. */
  text: string;
  /** The identifier, the string's or quoted name's content, or the number's text. */
  value: string;
  /** Offset of the token's first character. */
  start: number;
}

export class LexError extends Error {
  constructor(message: string, readonly at: number) {
    super(message);
  }
}

const OPS = ['<=', '>=', '!=', '<>', '==', '=', '<', '>', '+', '-', '*', '/', '%', ':'];
const PUNCT = '()[],.;';

export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === "'" || c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= text.length) throw new LexError(`Unclosed ${c === "'" ? 'string' : 'name'}`, start);
        if (text[i] === c) {
          if (text[i + 1] === c) {
            value += c;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += text[i++];
      }
      out.push({ type: c === "'" ? 'string' : 'qident', text: text.slice(start, i), value, start });
      continue;
    }
    const num = /^(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)([A-Za-z_][A-Za-z0-9_]*)?/.exec(text.slice(i));
    if (num) {
      i += num[0].length;
      // a name may start with a digit when it is not all digits (3d): a suffix other than a
      // number's or a duration's makes it a name
      const suffix = num[2] ?? '';
      const isNumber = suffix === '' || /^(l|f|d|ms|s|m|h)$/i.test(suffix);
      out.push({ type: isNumber ? 'number' : 'ident', text: num[0], value: num[0], start });
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (id) {
      i += id[0].length;
      out.push({ type: 'ident', text: id[0], value: id[0], start });
      continue;
    }
    const op = OPS.find((o) => text.startsWith(o, i));
    if (op) {
      i += op.length;
      out.push({ type: 'op', text: op, value: op, start });
      continue;
    }
    if (PUNCT.includes(c)) {
      i++;
      out.push({ type: 'punct', text: c, value: c, start });
      continue;
    }
    throw new LexError(`Unexpected character ${c}`, i);
  }
  out.push({ type: 'eof', text: '', value: '', start: text.length });
  return out;
}
