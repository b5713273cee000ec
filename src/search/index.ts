import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import { writeFileAtomically } from '../store/atomic.ts';
import { readGraphBytes, type GraphEntry, type Manifest } from '../store/manifest.ts';
import { DocCollector, quadsOf, type DocKind, type SearchDoc } from './docs.ts';

/**
 * The full-text index of a store, in `<store>/search/`: `index.json` (MiniSearch's inverted
 * index, BM25 ranked, with what each session's documents were read from) and one file of texts
 * per session, read only for the sessions a search returns hits in (for their snippets). Ingest
 * replaces a session's documents as it writes the session's graph; a session whose graph changed
 * some other way is read again from its graph file the next time the index is opened.
 */

const FORMAT = 'weave-search/1';
const DIR = 'search';

/** What the index keeps of a document besides its terms: enough for a hit, not the text. */
type Stored = Omit<SearchDoc, 'text' | 'id'>;

interface SessionState {
  /** The graph file and quad count the documents were read from. */
  file: string;
  quads: number;
  ids: string[];
  title?: string;
}

interface IndexFile {
  format: typeof FORMAT;
  sessions: Record<string, SessionState>;
  index: unknown;
}

export interface Hit extends Stored {
  score: number;
  /** The matched terms, as the index spells them. */
  terms: string[];
  snippet: string;
  /** The session's title. */
  title?: string;
  /** How many other sessions hold the same block (forks, copies). */
  alsoIn?: number;
}

const OPTIONS: Options<SearchDoc> = {
  fields: ['text', 'tool'],
  storeFields: ['session', 'event', 'block', 'kind', 'role', 'tool', 'time'],
  // Documents are replaced a session at a time; vacuuming runs when the index is saved.
  autoVacuum: false,
};

function emptyIndex(): MiniSearch<SearchDoc> {
  return new MiniSearch<SearchDoc>({ ...OPTIONS });
}

export class SearchIndex {
  private dirty = false;

  private constructor(
    readonly storeDir: string,
    private readonly mini: MiniSearch<SearchDoc>,
    private readonly sessions: Record<string, SessionState>,
  ) {}

  /** The index of the store in `storeDir` (empty if there is none yet, or it is of another format). */
  static async open(storeDir: string): Promise<SearchIndex> {
    const text = await readFile(join(storeDir, DIR, 'index.json'), 'utf8').catch(() => undefined);
    if (text) {
      const file = JSON.parse(text) as IndexFile;
      if (file.format === FORMAT) return new SearchIndex(storeDir, MiniSearch.loadJS(file.index as never, { ...OPTIONS }), file.sessions);
    }
    return new SearchIndex(storeDir, emptyIndex(), {});
  }

  get documentCount(): number {
    return this.mini.documentCount;
  }

  /** A session's documents in place of what the index held for it; its texts go to their own file. */
  async replaceSession(session: string, entry: Pick<GraphEntry, 'file' | 'quads'>, docs: SearchDoc[], title?: string): Promise<void> {
    for (const id of this.sessions[session]?.ids ?? []) if (this.mini.has(id)) this.mini.discard(id);
    // A block can repeat in one session's graph (copies across its streams): one document each.
    const unique = [...new Map(docs.map((d) => [d.id, d])).values()];
    this.mini.addAll(unique);
    this.sessions[session] = {
      file: entry.file,
      quads: entry.quads,
      ids: unique.map((d) => d.id),
      ...(title === undefined ? {} : { title }),
    };
    // Derived data, rebuilt from the graph if lost: written aside and renamed, without a flush to disk.
    const path = textsPath(this.storeDir, session);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(`${path}.${process.pid}.tmp`, JSON.stringify(Object.fromEntries(unique.map((d) => [d.id, d.text]))));
    await rename(`${path}.${process.pid}.tmp`, path);
    this.dirty = true;
  }

  /**
   * A session read on from where its last read stopped: the documents of its new lines are added
   * (or replace those of the same block), its earlier ones kept. A tool result whose tool use was
   * read before takes the tool's name from that use's document.
   */
  async extendSession(session: string, entry: Pick<GraphEntry, 'file' | 'quads'>, docs: SearchDoc[], title?: string): Promise<void> {
    const had = this.sessions[session];
    if (!had) return this.replaceSession(session, entry, docs, title);
    const unique = [...new Map(docs.map((d) => [d.id, d])).values()];
    for (const d of unique) {
      if (!d.tool && d.useBlock) {
        const tool = this.mini.getStoredFields(`${session} ${d.useBlock}`)?.tool;
        if (typeof tool === 'string') d.tool = tool;
      }
      if (this.mini.has(d.id)) this.mini.discard(d.id);
    }
    this.mini.addAll(unique);
    const known = title ?? had.title;
    this.sessions[session] = {
      file: entry.file,
      quads: entry.quads,
      ids: [...new Set([...had.ids, ...unique.map((d) => d.id)])],
      ...(known === undefined ? {} : { title: known }),
    };
    const path = textsPath(this.storeDir, session);
    const texts = await readTexts(this.storeDir, session);
    for (const d of unique) texts[d.id] = d.text;
    await writeFile(`${path}.${process.pid}.tmp`, JSON.stringify(texts));
    await rename(`${path}.${process.pid}.tmp`, path);
    this.dirty = true;
  }

  /**
   * Brings the index up to the manifest: sessions whose graph is not what their documents were
   * read from are read again from their graph files; sessions the store no longer has are dropped.
   */
  async refresh(manifest: Manifest): Promise<number> {
    const current = new Map(
      Object.values(manifest.graphs)
        .filter((e) => e.sessionId !== undefined && !e.reader)
        .map((e) => [e.sessionId!, e]),
    );
    let read = 0;
    for (const [session, entry] of current) {
      const had = this.sessions[session];
      if (had && had.file === entry.file && had.quads === entry.quads) continue;
      const collector = await collectGraphFile(this.storeDir, session, entry);
      await this.replaceSession(session, entry, collector.docs(), collector.title());
      read++;
    }
    for (const session of Object.keys(this.sessions)) {
      if (current.has(session)) continue;
      for (const id of this.sessions[session].ids) if (this.mini.has(id)) this.mini.discard(id);
      delete this.sessions[session];
      await rm(textsPath(this.storeDir, session), { force: true });
      this.dirty = true;
    }
    return read;
  }

  async save(): Promise<void> {
    if (!this.dirty) return;
    if (this.mini.dirtCount) await this.mini.vacuum();
    const file: IndexFile = { format: FORMAT, sessions: this.sessions, index: this.mini.toJSON() };
    await mkdir(join(this.storeDir, DIR), { recursive: true });
    await writeFileAtomically(join(this.storeDir, DIR, 'index.json'), JSON.stringify(file));
    this.dirty = false;
  }

  /**
   * Ranked hits for `text`: every word must match (the last as a prefix, each allowing a typo
   * in long words); when none match them all, any word will do. Snippets come from the texts.
   */
  async search(
    text: string,
    { limit = 20, kinds, session }: { limit?: number; kinds?: DocKind[]; session?: string } = {},
  ): Promise<{ hits: Hit[]; total: number }> {
    const filter =
      kinds || session ? (r: SearchResult) => (!kinds || kinds.includes(r.kind)) && (!session || r.session === session) : undefined;
    const ask = (combineWith: 'AND' | 'OR') =>
      this.mini.search(text, {
        combineWith,
        prefix: (term, i, terms) => i === terms.length - 1 && term.length > 2,
        fuzzy: (term) => (term.length > 5 ? 0.15 : 0),
        filter,
      });
    let results = ask('AND');
    if (!results.length) results = ask('OR');
    // A block copied into several sessions (a fork, a copied file) is one hit, at its best score,
    // shown in a copy whose session has a title where one has.
    const copies = new Map<string, number>();
    const kept = new Map<string, number>();
    const unique: SearchResult[] = [];
    for (const r of results) {
      copies.set(r.block, (copies.get(r.block) ?? 0) + 1);
      const at = kept.get(r.block);
      if (at === undefined) kept.set(r.block, unique.push(r) - 1);
      else if (!this.sessions[unique[at].session]?.title && this.sessions[r.session]?.title) unique[at] = { ...r, score: unique[at].score };
    }
    results = unique;
    const top = results.slice(0, limit);
    const texts = new Map<string, Record<string, string>>();
    for (const session of new Set(top.map((r) => r.session as string))) texts.set(session, await readTexts(this.storeDir, session));
    const hits = top.map((r): Hit => {
      const { id, score, terms, queryTerms, match, ...stored } = r;
      void queryTerms;
      void match;
      const title = this.sessions[r.session]?.title;
      const others = copies.get(r.block)! - 1;
      return {
        ...(stored as Stored),
        score,
        terms,
        snippet: snippet(texts.get(r.session)?.[id] ?? '', terms),
        ...(title ? { title } : {}),
        ...(others ? { alsoIn: others } : {}),
      };
    });
    return { hits, total: results.length };
  }
}

function textsPath(storeDir: string, session: string): string {
  return join(storeDir, DIR, 'texts', `${createHash('sha1').update(session).digest('hex')}.json`);
}

async function readTexts(storeDir: string, session: string): Promise<Record<string, string>> {
  return JSON.parse(await readFile(textsPath(storeDir, session), 'utf8').catch(() => '{}')) as Record<string, string>;
}

/** A session's documents and title, read back from its graph file. */
export async function collectGraphFile(storeDir: string, session: string, entry: GraphEntry): Promise<DocCollector> {
  const collector = new DocCollector(session);
  for (const [s, p, o] of quadsOf((await readGraphBytes(storeDir, entry)).toString('utf8'))) collector.triple(s, p, o);
  return collector;
}

/** Some 160 characters around the first matched term, on one line. */
export function snippet(text: string, terms: string[], width = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const at =
    terms
      .map((t) => lower.indexOf(t.toLowerCase()))
      .filter((i) => i >= 0)
      .sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - Math.floor(width / 3));
  const end = Math.min(flat.length, start + width);
  return `${start > 0 ? '…' : ''}${flat.slice(start, end)}${end < flat.length ? '…' : ''}`;
}
