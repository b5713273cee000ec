import { createReadStream } from 'node:fs';
import { NOT_XML_IN_NTRIPLES } from '../rdf/xml.ts';
import type { ExportPlan } from './graphs.ts';

/**
 * The stated policy for characters XML 1.0 cannot carry (ESC in quoted terminal output, most
 * often): RDF/XML is refused before a byte is written, with how many statements hold one, which
 * characters, in which graphs, and the syntaxes that can carry them. Never ill-formed XML,
 * and never text silently changed. Only graphs are named, never content.
 */
export class XmlCharacterError extends Error {}

const ALL = new RegExp(NOT_XML_IN_NTRIPLES.source, 'g');

export async function checkXmlCharacters(plan: ExportPlan): Promise<void> {
  let statements = 0;
  // The graphs that hold one, by name: what --graph and --session leave out (a graph file's name says nothing to a user).
  const graphs = new Set<string>();
  const characters = new Set<string>();
  // A graph read only for its turns (the alignment's) is not written: what it holds is not checked.
  for (const source of plan.sources.filter((s) => !(s.kind === 'nquads' && s.turnsOnly))) {
    let rest = '';
    for await (const chunk of createReadStream(source.path, { encoding: 'utf8', highWaterMark: 1 << 20 }) as AsyncIterable<string>) {
      const text = rest + chunk;
      const end = text.lastIndexOf('\n') + 1;
      rest = text.slice(end);
      let lastLine = -1;
      for (const m of text.slice(0, end).matchAll(ALL)) {
        characters.add(codePoint(m[0]));
        const lineStart = text.lastIndexOf('\n', m.index) + 1;
        if (lineStart === lastLine) continue;
        lastLine = lineStart;
        statements++;
        graphs.add(source.graph ? `<${source.graph}>` : 'the default graph');
      }
    }
  }
  if (!statements) return;
  const [first] = graphs;
  throw new XmlCharacterError(
    `RDF/XML is XML 1.0, which cannot carry ${[...characters].sort().join(', ')}: ${statements} statement${statements === 1 ? '' : 's'} ` +
      `in ${graphs.size === 1 ? first : `${graphs.size} graphs (the first ${first})`} hold${statements === 1 ? 's' : ''} one. ` +
      'Nothing was written. Export as TriG, Turtle, N-Quads, N-Triples or JSON-LD, which carry every character, or leave those graphs out with --graph/--session.',
  );
}

/** `\u001B`, `\U0000001B` or the raw character, as U+001B (the escape itself may carry a leading `\\` pair). */
function codePoint(match: string): string {
  const hex = /\\[uU](?:0000)?([0-9A-Fa-f]{4})$/.exec(match)?.[1];
  const code = hex ? Number.parseInt(hex, 16) : match.charCodeAt(match.length - 1);
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
