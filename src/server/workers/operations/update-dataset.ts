import { HttpError } from '../../errors.ts';
import { skipOpaque } from '../../../query/sparql-text.ts';

/**
 * `using-graph-uri` and `using-named-graph-uri` (SPARQL Protocol §2.2.3) for a store whose update
 * call takes no dataset: the parameters become `USING` clauses written into each DELETE/INSERT
 * operation, and a request that sets both the parameters and USING/WITH in its text is refused.
 * Only the top level of the text is read: strings, IRIs, comments and groups are skipped whole.
 */

interface Keyword {
  word: string;
  start: number;
  end: number;
}

interface Operation {
  keywords: Keyword[];
  start: number;
  end: number;
}

export function applyUsingGraphs(update: string, usingGraphs: string[], usingNamedGraphs: string[]): string {
  if (!usingGraphs.length && !usingNamedGraphs.length) return update;
  const clause = `${[...usingGraphs.map((g) => `USING <${g}>`), ...usingNamedGraphs.map((g) => `USING NAMED <${g}>`)].join(' ')} `;
  const edits: { at: number; cut?: number; text: string }[] = [];
  for (const op of operations(update)) {
    const words = op.keywords.map((k) => k.word);
    if (words.includes('USING') || words.includes('WITH'))
      throw new HttpError(
        400,
        'the request names a dataset with using-graph-uri/using-named-graph-uri and the update has its own USING or WITH; give one or the other',
      );
    const [first, second] = op.keywords;
    if (!first || (first.word !== 'INSERT' && first.word !== 'DELETE') || second?.word === 'DATA') continue;
    if (first.word === 'DELETE' && second?.word === 'WHERE') {
      // DELETE WHERE { P } is DELETE { P } WHERE { P }, which can take USING.
      const group = groupAfter(update, second.end);
      if (!group) continue;
      const pattern = update.slice(group.start, group.end);
      edits.push({ at: second.start, cut: second.end, text: `${pattern} ${clause}WHERE` });
      continue;
    }
    const where = op.keywords.find((k) => k.word === 'WHERE');
    if (where) edits.push({ at: where.start, text: clause });
  }
  let out = update;
  for (const edit of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, edit.at) + edit.text + out.slice(edit.cut ?? edit.at);
  return out;
}

const KEYWORDS = new Set(['INSERT', 'DELETE', 'DATA', 'WHERE', 'USING', 'WITH']);

/** The operations of an update request (split at top-level `;`) with their top-level keywords. */
function operations(text: string): Operation[] {
  const ops: Operation[] = [];
  let current: Operation = { keywords: [], start: 0, end: text.length };
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const past = skipOpaque(text, i);
    if (past !== i) i = past;
    else if (c === '{') {
      depth++;
      i++;
    } else if (c === '}') {
      depth = Math.max(0, depth - 1);
      i++;
    } else if (c === ';' && depth === 0) {
      current.end = i;
      ops.push(current);
      current = { keywords: [], start: i + 1, end: text.length };
      i++;
    } else if (c === '?' || c === '$') {
      i++;
      while (i < text.length && /[\w\u00B7\u00C0-\uFFFF]/.test(text[i])) i++;
    } else if (/[A-Za-z_]/.test(c)) {
      const start = i;
      while (i < text.length && /[\w-]/.test(text[i])) i++;
      if (text[i] === ':') {
        // A prefixed name: its local part is never a keyword.
        while (i < text.length && !/[\s{}();,]/.test(text[i])) i++;
        continue;
      }
      const word = text.slice(start, i).toUpperCase();
      if (depth === 0 && KEYWORDS.has(word)) current.keywords.push({ word, start, end: i });
    } else i++;
  }
  ops.push(current);
  return ops;
}

/** The `{ … }` group that starts after `from` (spaces and comments allowed before it). */
function groupAfter(text: string, from: number): { start: number; end: number } | undefined {
  let i = from;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== '{') return undefined;
  const start = i;
  let depth = 0;
  while (i < text.length) {
    const c = text[i];
    const past = skipOpaque(text, i);
    if (past !== i) i = past;
    else {
      if (c === '{') depth++;
      else if (c === '}' && --depth === 0) return { start, end: i + 1 };
      i++;
    }
  }
  return undefined;
}
