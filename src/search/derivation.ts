import type { Input, SessionDerivation, StoreDerivation } from '../derive/derivation.ts';
import { stampOf } from '../derive/derivation.ts';
import { holdHeapGrowth, LARGE_INDEX_BYTES } from '../derive/heap.ts';
import { DocCollector, type SearchDoc } from './docs.ts';
import { documentsOutput, documentsText, indexIsCurrent, readDocuments, SearchIndex } from './index.ts';
import { documentsFiles } from './request.ts';

/**
 * Search as two derivations: each session's documents (the texts of its turns, tool inputs and
 * results, one document per content block) from its graph's triples, and the index over every
 * session's documents. A session read on from its last read adds the documents of its new lines
 * to those it had, so an append never reads the session's graph again.
 */

interface Collected {
  docs: SearchDoc[];
  title?: string;
  carriedOn: boolean;
}

const DOCUMENTS: Input<Collected> = {
  name: 'search documents',
  appends: true,
  collect: ({ sessionId }, carriedOn) => {
    const collector = new DocCollector(sessionId);
    return {
      add: (s, p, o, line) => collector.triple(s, p, o, line),
      done: () => ({ docs: collector.docs(), title: collector.title(), carriedOn }),
    };
  },
};

export const searchDocuments: SessionDerivation<Collected> = {
  name: 'search/documents',
  // 2: each document names the sub-agent stream it was written in; 3: its texts have their secrets redacted;
  // 4: a session whose main file is absent titled by a sub-agent, marked (model/session-title.ts).
  version: '4',
  description: 'The texts of turns, tool inputs and tool results, one document per content block, for the full-text index.',
  reads: DOCUMENTS,
  output: (_soul, sessionId) => documentsOutput(sessionId),
  derive: async ({ docs, title, carriedOn }, _session, run, previous) => {
    // A block can repeat in one session's graph (copies across its streams): one document each.
    let unique = new Map(docs.map((d) => [d.id, d]));
    let known = title;
    if (carriedOn && previous) {
      const before = await readDocuments(run.writer.dir, previous.file);
      const had = new Map(before.docs.map((d) => [d.id, d]));
      // A tool result whose use was read before takes the tool's name from that use's document.
      for (const d of unique.values())
        if (!d.tool && d.useBlock) {
          const tool = had.get(`${d.session} ${d.useBlock}`)?.tool;
          if (tool) d.tool = tool;
        }
      unique = new Map([...had, ...unique]);
      known ??= before.title;
    }
    return { data: documentsText({ ...(known === undefined ? {} : { title: known }), docs: [...unique.values()] }) };
  },
};

export const searchIndex: StoreDerivation = {
  name: 'search/index',
  // 2: the stream is stored with each document; 3: only the kind is (the rest is read with the snippet), a session's documents a range of ids;
  // 4: and each document's fold key and stream number.
  version: '4',
  description: "A BM25 index (MiniSearch) over every session's search documents.",
  reads: 'store',
  derive: async (run) => {
    const builtWith = stampOf(searchIndex);
    if (await indexIsCurrent(run.writer.dir, run.writer.manifest, builtWith)) return { wrote: false };
    const same = run.writer.manifest.files?.['search/index']?.builtWith === builtWith;
    // A large index is held whole while it is updated: the heap's growth is held with it.
    const documents = documentsFiles(run.writer.manifest).reduce((n, [, entry]) => n + entry.bytes, 0);
    const release = documents > LARGE_INDEX_BYTES ? holdHeapGrowth() : undefined;
    try {
      const index = same ? await SearchIndex.open(run.writer.dir, run.writer.manifest) : SearchIndex.empty(run.writer.dir);
      await index.update(run.writer.manifest);
      await index.save(run.writer, builtWith);
    } finally {
      release?.();
    }
    return { wrote: true };
  },
};
