import { stampOf, type StoreDerivation } from '../derive/derivation.ts';
import { linksGraphIri } from '../rdf/iri.ts';
import { splitQuad } from '../rdf/nquads.ts';
import { asTerm, iri, nquad, type Term, type Triple, unsliced } from '../rdf/terms.ts';
import { weave } from '../rdf/vocab.ts';
import { join } from 'node:path';
import type { StoreWriter } from '../store/writer.ts';
import { filesOf, type NamedFile } from '../store/manifest.ts';
import { readLineChunks } from '../store/store.ts';
import { type FileScan, type PendingReference, readScans, SCANS_NAME, writeScans } from './scans.ts';

/**
 * Links across sessions. A compaction's tail or a summary's leaf can be a record of an earlier
 * session file, which is another session's graph. The session emitter records each link it could
 * not resolve as a weave:CrossSessionReference; after an ingest this pass looks for the named
 * uuids in every session graph and states the links it finds in one graph of their own, rebuilt
 * whole each time, so re-reading a session still replaces exactly one session graph. A reference
 * found nowhere stays as it is: dangling, but recorded.
 */

/** The links pass as a derivation across sessions: run when a session graph changed, or its version did. */
export const links: StoreDerivation = {
  name: 'links',
  version: '1',
  description: "Links whose target is a record of another session's graph (a compaction's tail in an earlier file).",
  reads: 'store',
  derive: async (run, changed) => {
    const graph = linksGraphIri(run.soul);
    const before = run.writer.manifest.graphs[graph];
    if (!changed.size && (!before || before.builtWith === stampOf(links))) return { wrote: false };
    await linkAcrossSessions(run.writer);
    const after = run.writer.manifest.graphs[graph];
    if (JSON.stringify(after ?? null) === JSON.stringify(before ?? null)) return { wrote: false };
    await run.wrote(graph, after);
    return { wrote: true };
  },
};

interface LinkReport {
  references: number;
  resolved: number;
  /** Graph files read this pass, whole or in part: those no pass had read to their length. */
  read: number;
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
  // What earlier passes found, kept in the store (scans.ts): a pass reads only what none has read.
  // While a server keeps a session current it reads the appended lines, not the session.
  const known = await readScans(store.dir, store.manifest.files?.[SCANS_NAME]);
  const seen = new Map<string, FileScan>();
  const read = new Set<string>();
  // A file written before lengths were recorded may change under its name: it is read each time.
  const cached = (f: NamedFile) => (f.bytes === undefined ? undefined : known.get(f.file));

  // Pass 1: the references, which are few, and written with what the whole session derives (in
  // the derived part of a graph kept in parts). Graph files are searched as bytes (decoding them
  // all would cost more than the search); only the files that hold a reference are decoded.
  const pending = new Map<Term, PendingReference>();
  for (const [name, entry] of sessions) {
    const files = filesOf(entry);
    for (const f of entry.derived ? files.slice(1) : files) {
      let scan = cached(f);
      if (!scan?.references || scan.bytes !== f.bytes) {
        scan = { ...(await referencesIn(join(store.dir, f.file), f.bytes)), searched: new Set(), hits: new Map() };
        read.add(f.file);
      }
      seen.set(f.file, scan);
      for (const ref of scan.references!) {
        const merged = pending.get(ref.node) ?? { node: ref.node, graph: name };
        pending.set(ref.node, Object.assign(merged, { ...ref, graph: name }));
      }
    }
  }
  const references = [...pending.values()].filter((r) => r.from && r.property && r.id);

  // Pass 2, only when there is something to look for: which graphs hold each wanted uuid.
  const found = new Map<string, { event: Term; graph: string }[]>();
  const wanted = new Set(references.map((r) => r.id!));
  if (wanted.size)
    for (const [name, entry] of sessions)
      for (const f of filesOf(entry)) {
        const before = seen.get(f.file) ?? cached(f);
        // What was searched before, for every id wanted now, need not be read again.
        const fresh = !!before && [...wanted].every((id) => before.searched.has(id)) && before.bytes <= (f.bytes ?? -1);
        const scan: FileScan = fresh ? before! : { bytes: 0, references: before?.references, searched: wanted, hits: new Map() };
        if (scan.bytes !== f.bytes || !fresh) {
          const from = fresh ? scan.bytes : 0;
          scan.bytes = from;
          read.add(f.file);
          for await (const chunk of readLineChunks(join(store.dir, f.file), from, f.bytes)) {
            for (const [id, events] of eventsIn(chunk, wanted)) scan.hits.set(id, [...(scan.hits.get(id) ?? []), ...events]);
            scan.bytes += chunk.length;
          }
        }
        seen.set(f.file, scan);
        for (const [id, events] of scan.hits)
          if (wanted.has(id)) for (const event of events) found.set(id, [...(found.get(id) ?? []), { event, graph: name }]);
      }

  // Written again when a file was read, or one it kept is gone.
  if (read.size || [...known.keys()].some((file) => !seen.has(file))) await writeScans(store, seen);

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
    return { references: references.length, resolved, read: read.size };
  }
  const lines = [...new Set(triples.map((t) => nquad(t, iri(graph))))].sort();
  await store.writeGraph(graph, lines.join(''), { quads: lines.length, builtWith: stampOf(links) });
  return { references: references.length, resolved, read: read.size };
}

/** The references a graph file holds (its CrossSessionReference nodes, whole or in part). */
async function referencesIn(path: string, to: number | undefined): Promise<{ bytes: number; references: PendingReference[] }> {
  const refs = new Map<Term, PendingReference>();
  const marks = [MARK.from, MARK.property, MARK.id];
  let bytes = 0;
  let typed = false;
  // A chunk at a time (a reference's lines may fall in two); only a chunk holding a mark is decoded.
  for await (const chunk of readLineChunks(path, 0, to)) {
    bytes += chunk.length;
    typed ||= chunk.indexOf(MARK.type) !== -1;
    if (!marks.some((mark) => chunk.indexOf(mark) !== -1)) continue;
    for (const line of linesWith(chunk.toString('utf8'), marks)) {
      const quad = splitQuad(line);
      if (!quad) continue;
      // Terms of their own: a slice would keep the chunk's whole text (about 8 MiB) alive with it.
      const [s, p, o] = quad;
      const node = unsliced(s) as Term;
      const ref = refs.get(node) ?? { node, graph: '' };
      refs.set(node, ref);
      if (` ${p} ` === MARK.from) ref.from = unsliced(o) as Term;
      else if (` ${p} ` === MARK.property) ref.property = unsliced(o) as Term;
      else ref.id = JSON.parse(o) as string;
    }
  }
  return { bytes, references: typed ? [...refs.values()] : [] };
}

/** The events whose uuid is wanted, by uuid: one search for the event-id predicate, each hit checked against the set. */
function eventsIn(bytes: Buffer, wanted: Set<string>): Map<string, Term[]> {
  const events = new Map<string, Term[]>();
  for (let at = bytes.indexOf(MARK.eventId); at !== -1; at = bytes.indexOf(MARK.eventId, at + 1)) {
    const from = at + Buffer.byteLength(MARK.eventId);
    const id = bytes.toString('utf8', from, bytes.indexOf(0x22, from));
    if (!wanted.has(id)) continue;
    const start = bytes.lastIndexOf(0x0a, at) + 1;
    events.set(id, [...(events.get(id) ?? []), asTerm(bytes.toString('utf8', start, at))]);
  }
  return events;
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
