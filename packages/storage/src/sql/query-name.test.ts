import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { named } from './query-name.ts';

describe('named', () => {
  it('sends the name to a server as log_comment, keeping the settings the call passes', () => {
    expect(named({ engine: 'server' }, 'traces.summary')).toEqual({ clickhouse_settings: { log_comment: 'traces.summary' } });
    expect(named({ engine: 'server' }, 'traces.export.rows', { max_threads: 2 })).toEqual({
      clickhouse_settings: { max_threads: 2, log_comment: 'traces.export.rows' },
    });
  });

  it('adds nothing on the embedded engine, where each setting costs a SET statement', () => {
    expect(named({ engine: 'embedded' }, 'traces.summary')).toEqual({});
    expect(named({ engine: 'embedded' }, 'traces.summary', { max_threads: 2 })).toEqual({ clickhouse_settings: { max_threads: 2 } });
  });
});

const SRC = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
/** Not named: the client's own bootstrap statements and the migration runner. */
const UNNAMED_FILES = new Set([path.join('client', 'client.ts'), 'migrations.ts']);
// `storage.client` may end a line and `.query(` start the next.
const CALL = /\bclient\s*\.(?:query|command|exec|insert)\(|\binsertRows\(/g;
const NAME = /^[a-z-]+(\.[a-z-]+)+$/;

/** Every call that reaches the engine in the package's modules, with the name it carries (null when none). */
function queryCalls(): { where: string; folder: string; name: string | null }[] {
  const files = (readdirSync(SRC, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !UNNAMED_FILES.has(f))
    .sort();
  return files.flatMap((file) => {
    const source = blankComments(readFileSync(path.join(SRC, file), 'utf8'));
    return [...source.matchAll(CALL)].map((match) => {
      const open = match.index + match[0].length - 1;
      const call = source.slice(open + 1, closingParen(source, open));
      // insertRows(table, columns, format, rows, name[, dedupToken])
      const name = match[0] === 'insertRows(' ? /,\s*'([^']+)'\s*(?:,\s*[\w.]+\s*)?$/.exec(call) : /\.\.\.named\(storage, '([^']+)'/.exec(call);
      const line = source.slice(0, match.index).split('\n').length;
      return { where: `${file}:${line}`, folder: file.split(path.sep)[0]!, name: name?.[1] ?? null };
    });
  });
}

describe('query names', () => {
  const calls = queryCalls();

  it('finds the calls', () => {
    expect(calls.length).toBeGreaterThan(70);
  });

  it('names every call <folder>.<what>', () => {
    const wrong = calls.filter((c) => c.name === null || !NAME.test(c.name) || !c.name.startsWith(`${c.folder}.`));
    expect(wrong.map((c) => `${c.where} ${c.name ?? '(no name)'}`)).toEqual([]);
  });

  it('gives no two calls one name', () => {
    const byName = new Map<string, string[]>();
    for (const c of calls) if (c.name !== null) byName.set(c.name, [...(byName.get(c.name) ?? []), c.where]);
    const shared = [...byName].filter(([, where]) => where.length > 1).map(([name, where]) => `${name}: ${where.join(', ')}`);
    expect(shared).toEqual([]);
  });
});

/** The source with its comments blanked (line breaks kept), so a call named in a comment is no call. */
function blankComments(source: string): string {
  let out = '';
  for (let i = 0; i < source.length; ) {
    const end = skipLiteral(source, i);
    if (end > i) {
      out += source.slice(i, end);
      i = end;
    } else if (source.startsWith('//', i) || source.startsWith('/*', i)) {
      const close = source.startsWith('//', i) ? source.indexOf('\n', i) : source.indexOf('*/', i) + 2;
      const stop = close <= i ? source.length : close;
      out += source.slice(i, stop).replace(/[^\n]/g, ' ');
      i = stop;
    } else out += source[i++];
  }
  return out;
}

/** The index of the parenthesis that closes the one at `open`, skipping strings and template literals. */
function closingParen(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; ) {
    const end = skipLiteral(source, i);
    if (end > i) {
      i = end;
      continue;
    }
    if ('([{'.includes(source[i]!)) depth++;
    else if (')]}'.includes(source[i]!) && --depth === 0) return i;
    i++;
  }
  throw new Error(`unclosed call at ${open}`);
}

/** Where the string or template literal starting at `i` ends (past its quote); `i` when none starts there. */
function skipLiteral(source: string, i: number): number {
  const quote = source[i]!;
  if (quote !== "'" && quote !== '"' && quote !== '`') return i;
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === '\\') j++;
    else if (source[j] === quote) return j + 1;
    else if (quote === '`' && source.startsWith('${', j)) j = closingParen(source, j + 1);
  }
  throw new Error(`unclosed literal at ${i}`);
}
