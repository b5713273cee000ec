import { createReadStream } from 'node:fs';
import { linksGraphIri } from '../rdf/iri.ts';
import { asTerm, iri, nquad, type Term, type Triple } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import type { StoreWriter } from '../store/writer.ts';

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
  from: ` ${weave.referenceFrom} `,
  property: ` ${weave.referenceProperty} `,
  id: ` ${weave.referenceTargetId} `,
  eventId: ` ${weave.eventId} "`,
};

const REFERENCE_MARKS = [MARK.from, MARK.property, MARK.id];

/** Rebuilds the links graph of the store `store` writes, from the session graphs its manifest names. */
export async function linkAcrossSessions(store: StoreWriter): Promise<LinkReport> {
  const graph = linksGraphIri(store.soul);
  const sessions = Object.entries(store.manifest.graphs).filter(([, e]) => e.sessionId && !e.reader);

  // Pass 1: the references, which are few. Each graph file is searched as bytes, a chunk at a
  // time, and only the lines holding a mark are decoded: the pass holds one chunk, never a file.
  const pending = new Map<Term, PendingReference>();
  for (const [name, entry] of sessions) {
    await eachLineWith(store.pathOf(entry), REFERENCE_MARKS, (line) => {
      const [s, p, o] = splitQuad(line);
      const ref = pending.get(s) ?? { node: s, graph: name };
      pending.set(s, ref);
      if (` ${p} ` === MARK.from) ref.from = o;
      else if (` ${p} ` === MARK.property) ref.property = o;
      else if (` ${p} ` === MARK.id) ref.id = JSON.parse(o) as string;
    });
  }
  const references = [...pending.values()].filter((r) => r.from && r.property && r.id);

  // Pass 2, only when there is something to look for: which graphs hold each wanted uuid.
  const found = new Map<string, { event: Term; graph: string }[]>();
  const wanted = new Set(references.map((r) => r.id!));
  if (wanted.size)
    for (const [name, entry] of sessions)
      await eachLineWith(store.pathOf(entry), [MARK.eventId], (line) => {
        const at = line.indexOf(MARK.eventId);
        const from = at + MARK.eventId.length;
        const id = line.slice(from, line.indexOf('"', from));
        if (!wanted.has(id)) return;
        const list = found.get(id);
        const hit = { event: asTerm(line.slice(0, at)), graph: name };
        if (list) list.push(hit);
        else found.set(id, [hit]);
      });

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

const CHUNK = 1 << 20;

/**
 * Calls `onLine` with each line of the file at `path` that holds one of `marks` (once per line),
 * reading the file a chunk at a time and decoding only those lines.
 */
async function eachLineWith(path: string, marks: string[], onLine: (line: string) => void): Promise<void> {
  const needles = marks.map((m) => Buffer.from(m));
  let carry = Buffer.alloc(0);
  for await (const piece of createReadStream(path, { highWaterMark: CHUNK })) {
    const chunk = carry.length ? Buffer.concat([carry, piece as Buffer]) : (piece as Buffer);
    const end = chunk.lastIndexOf(0x0a) + 1;
    scan(chunk.subarray(0, end));
    carry = Buffer.from(chunk.subarray(end));
  }
  scan(carry);

  function scan(bytes: Buffer): void {
    const starts = new Set<number>();
    for (const needle of needles)
      for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + needle.length)) starts.add(bytes.lastIndexOf(0x0a, at) + 1);
    for (const start of [...starts].sort((x, y) => x - y)) {
      const stop = bytes.indexOf(0x0a, start);
      onLine(bytes.toString('utf8', start, stop === -1 ? bytes.length : stop));
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
