import { MAX_STRING_LENGTH, QueryLanguageError } from './errors.ts';

/**
 * The tokenizer of the trace query language. Keywords are identifiers, told apart by the
 * parser (case-insensitively), so a field can be matched to the catalogue the same way.
 */

export type TokenKind = 'ident' | 'string' | 'number' | 'duration' | 'op' | 'punct' | 'eof';

export interface Token {
  kind: TokenKind;
  /** The token as written in the query. */
  text: string;
  /** Identifiers, punctuation, operators: the text (operators normalised, `==` → `=`); strings: the unescaped text. */
  value: string;
  /** Numbers as written; durations in milliseconds. */
  number: number;
  /** 0-based offset of the token's first character. */
  pos: number;
}

/** Milliseconds per duration unit. */
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

const ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', "'": "'", n: '\n', t: '\t', r: '\r', '0': '\0' };

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';
const isIdentStart = (c: string | undefined) => c !== undefined && /[A-Za-z_]/.test(c);
const isIdentPart = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_]/.test(c);

/** Splits a query into tokens, ending with one `eof` token; throws QueryLanguageError on a bad character. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, start: number, value: string, number = 0) =>
    tokens.push({ kind, text: text.slice(start, i), value, number, pos: start });

  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === '"' || c === "'") {
      const { value, end } = readString(text, start);
      i = end;
      push('string', start, value);
      continue;
    }
    if (isDigit(c) || (c === '-' && isDigit(text[i + 1])) || (c === '.' && isDigit(text[i + 1]))) {
      if (c === '-') i++;
      while (isDigit(text[i])) i++;
      if (text[i] === '.') {
        i++;
        if (!isDigit(text[i])) throw new QueryLanguageError(i, 'a digit after the decimal point', describeAt(text, i));
        while (isDigit(text[i])) i++;
      }
      const amount = Number(text.slice(start, i));
      if (isIdentStart(text[i])) {
        const unitStart = i;
        while (isIdentPart(text[i])) i++;
        const unit = text.slice(unitStart, i).toLowerCase();
        const scale = DURATION_UNITS[unit];
        if (scale === undefined) {
          throw new QueryLanguageError(unitStart, 'a duration unit (ms, s, m, h)', JSON.stringify(text.slice(unitStart, i)));
        }
        push('duration', start, text.slice(start, i), amount * scale);
      } else {
        push('number', start, text.slice(start, i), amount);
      }
      if (!Number.isFinite(tokens[tokens.length - 1]!.number)) {
        throw new QueryLanguageError(start, 'a finite number', JSON.stringify(text.slice(start, i)));
      }
      continue;
    }
    if (isIdentStart(c)) {
      while (isIdentPart(text[i])) i++;
      push('ident', start, text.slice(start, i));
      continue;
    }
    const two = text.slice(i, i + 2);
    if (two === '!=' || two === '>=' || two === '<=' || two === '==') {
      i += 2;
      push('op', start, two === '==' ? '=' : two);
      continue;
    }
    if (c === '=' || c === '>' || c === '<') {
      i++;
      push('op', start, c);
      continue;
    }
    if ('()[],'.includes(c)) {
      i++;
      push('punct', start, c);
      continue;
    }
    throw new QueryLanguageError(i, 'a field, value, operator or parenthesis', JSON.stringify(String.fromCodePoint(text.codePointAt(i)!)));
  }
  tokens.push({ kind: 'eof', text: '', value: '', number: 0, pos: text.length });
  return tokens;
}

/** The unescaped text of the string literal at `start`, and the offset after its closing quote. */
function readString(text: string, start: number): { value: string; end: number } {
  const quote = text[start]!;
  let out = '';
  let i = start + 1;
  for (;;) {
    const c = text[i];
    if (c === undefined) throw new QueryLanguageError(i, `a closing ${quote} for the text at ${start}`, 'the end of the query');
    if (c === quote) break;
    if (c === '\\') {
      const next = text[i + 1];
      if (next === 'u') {
        const hex = text.slice(i + 2, i + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new QueryLanguageError(i, 'four hex digits after \\u', JSON.stringify(text.slice(i, i + 6)));
        out += String.fromCharCode(parseInt(hex, 16));
        i += 6;
        continue;
      }
      const escaped = next === undefined ? undefined : ESCAPES[next];
      if (escaped === undefined) {
        throw new QueryLanguageError(i, 'an escape (\\\\, \\", \\\', \\n, \\t, \\r, \\0, \\uXXXX)', JSON.stringify(text.slice(i, i + 2)));
      }
      out += escaped;
      i += 2;
      continue;
    }
    out += c;
    i++;
  }
  if (out.length > MAX_STRING_LENGTH) throw new QueryLanguageError(start, `a text of at most ${MAX_STRING_LENGTH} characters`, `${out.length} characters`);
  return { value: out, end: i + 1 };
}

/** How an error message shows what stands at `pos`. */
export function describeAt(text: string, pos: number): string {
  if (pos >= text.length) return 'the end of the query';
  return JSON.stringify(text.slice(pos, pos + 1));
}

/** How an error message shows a token. */
export function describeToken(token: Token): string {
  return token.kind === 'eof' ? 'the end of the query' : token.kind === 'string' ? token.text : JSON.stringify(token.text);
}
