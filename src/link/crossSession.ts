import { linksGraphIri } from '../rdf/iri.ts';
import { asTerm, iri, nquad, type Term, type Triple } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { StoreWriter } from '../store/writer.ts';
import { readGraphBytes } from '../store/store.ts';

/**
 * Links across sessions. A compaction's tail or a summary's leaf can be a record of an earlier
 * session file, which is another session's graph. The session emitter records each link it could
 * not resolve as a weave:CrossSessionReference; after an ingest this pass looks for the named
 * uuids in every session graph and states the links it finds in one graph of their own, rebuilt
 * whole each time, so re-reading a session still replaces exactly one session graph. A reference
 * found nowhere stays as it is: dangling, but recorded.
 */

export interface LinkReport {
  references: number;
  resolved: number;
}

interface PendingReference {
  node: Term;
  graph: string;
  from?: Term;
  property?: Term;
  id?: string;
}

const MARK = {
  type: `${weave.CrossSessionReference} `,
  from: ` ${weave.referenceFrom} `,
  property: ` ${weave.referenceProperty} `,
  id: ` ${weave.referenceTargetId} `,
  eventId: ` ${weave.eventId} "`,
};

/** Rebuilds the links graph of the store `store` writes, from the session graphs its manifest names. */
export async function linkAcrossSessions(store: StoreWriter): Promise<LinkReport> {
  const graph = linksGraphIri(store.soul);
  const sessions = Object.entries(store.manifest.graphs).filter(([, e]) => e.sessionId && !e.reader);

  // Pass 1: the references, which are few. Graph files are searched as bytes (decoding them all
  // would cost more than the search); only the files that hold a reference are decoded.
  const pending = new Map<Term, PendingReference>();
  for (const [name, entry] of sessions) {
    const bytes = await readGraphBytes(store.dir, entry);
    if (bytes.indexOf(MARK.type) === -1) continue;
    for (const line of linesWith(bytes.toString('utf8'), [MARK.from, MARK.property, MARK.id])) {
      const [s, p, o] = splitQuad(line);
      const ref = pending.get(s) ?? { node: s, graph: name };
      pending.set(s, ref);
      if (` ${p} ` === MARK.from) ref.from = o;
      else if (` ${p} ` === MARK.property) ref.property = o;
      else ref.id = JSON.parse(o) as string;
    }
  }
  const references = [...pending.values()].filter((r) => r.from && r.property && r.id);

  // Pass 2, only when there is something to look for: which graphs hold each wanted uuid.
  const found = new Map<string, { event: Term; graph: string }[]>();
  const wanted = new Set(references.map((r) => r.id!));
  if (wanted.size)
    for (const [name, entry] of sessions) {
      const bytes = await readGraphBytes(store.dir, entry);
      // One search per file for the event-id predicate; each hit's uuid is checked against the set.
      for (let at = bytes.indexOf(MARK.eventId); at !== -1; at = bytes.indexOf(MARK.eventId, at + 1)) {
        const from = at + Buffer.byteLength(MARK.eventId);
        const id = bytes.toString('utf8', from, bytes.indexOf(0x22, from));
        if (!wanted.has(id)) continue;
        const start = bytes.lastIndexOf(0x0a, at) + 1;
        found.set(id, [...(found.get(id) ?? []), { event: asTerm(bytes.toString('utf8', start, at)), graph: name }]);
      }
    }

  const triples: Triple[] = [];
  let resolved = 0;
  for (const ref of references) {
    const targets = [...new Set((found.get(ref.id!) ?? []).filter((f) => f.graph !== ref.graph).map((f) => f.event))];
    if (targets.length) resolved++;
    for (const target of targets) {
      triples.push({ s: ref.from!, p: ref.property!, o: target });
      triples.push({ s: ref.node, p: weave.resolvedTo, o: target });
    }
  }

  if (!triples.length) {
    if (store.manifest.graphs[graph]) await store.removeGraph(graph);
    return { references: references.length, resolved };
  }
  const lines = [...new Set(triples.map((t) => nquad(t, iri(graph))))].sort();
  await store.writeGraph(graph, lines.join(''), { quads: lines.length, builtWith: 'weave-links/1' });
  return { references: references.length, resolved };
}

/** The lines of an N-Quads text that contain one of `marks`, found by search rather than by split. */
function* linesWith(text: string, marks: string[]): Generator<string> {
  const seen = new Set<number>();
  for (const mark of marks) {
    for (let at = text.indexOf(mark); at !== -1; at = text.indexOf(mark, at + mark.length)) {
      const start = text.lastIndexOf('\n', at) + 1;
      if (seen.has(start)) continue;
      seen.add(start);
      const end = text.indexOf('\n', at);
      yield text.slice(start, end === -1 ? undefined : end);
    }
  }
}

/** Subject, predicate and object of one N-Quads line this project wrote (IRIs hold no spaces). */
function splitQuad(line: string): [Term, Term, Term] {
  const s = line.slice(0, line.indexOf('> ') + 1);
  const afterS = line.slice(s.length + 1);
  const p = afterS.slice(0, afterS.indexOf('> ') + 1);
  const rest = afterS.slice(p.length + 1).replace(/ \.\s*$/, '');
  const o = rest.slice(0, rest.lastIndexOf(' <'));
  return [asTerm(s), asTerm(p), asTerm(o)];
}
