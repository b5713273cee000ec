import { createHash } from 'node:crypto';
import { sessionFile } from '../derive/derivation.ts';
import { readLines } from '../acquire/lines.ts';
import { join } from 'node:path';
import MiniSearch, { type Options, type SearchResult } from 'minisearch';
import { exists } from '../acquire/files.ts';
import { readManifest, type Manifest, type SourceStamp } from '../store/manifest.ts';
import type { StoreWriter } from '../store/writer.ts';
import type { DocKind, SearchDoc } from './docs.ts';
import { loadTerm, withCompactPostings } from './postings.ts';
import { documentsFiles } from './request.ts';
import { snippet } from './snippet.ts';

/**
 * The full-text index of a store, in `<store>/search/`: `index.json` (MiniSearch's inverted
 * index, BM25 ranked, with each session's document ids and title) and one file of documents per
 * session (`documents/<SHA-1 of the session>.json`, read only for the hits a search shows: their
 * snippets, turns, roles, tools, times and streams). Both are derivations (derivation.ts), written through the
 * store writer and named in the manifest; the index names the documents files it holds as its
 * sources, so whether it is current is a look at the manifest alone.
 */

/**
 * 3: JSON lines (indexLines), so that an index larger than one string is read and written. 4: a
 * document keeps only its kind in the index, and a session its documents' range of short ids (see
 * SessionState). 5: and its fold key and stream number (Folding). An index file of another format
 * is not read: the index is made again from the documents files.
 */
const FORMAT = 'weave-search/5';
export const INDEX_NAME = 'search/index';
export const INDEX_FILE = 'search/index.json';

/** What a hit tells of its document besides its text: read from the session's documents file with the snippet's text. */
type Stored = Omit<SearchDoc, 'text' | 'id' | 'useBlock'>;

interface SessionState {
  /** The documents file the session's documents were read from, and its digest. */
  documents: string;
  sha1: string;
  /**
   * The session's documents are the index's short ids first … first + count − 1: MiniSearch numbers
   * documents as they are added, and a session's are added together. A list of their ids (as the
   * index kept before) was 91 MB of the file at 1 GB of transcripts, and a second copy of every id
   * in the memory of whoever read it.
   */
  first: number;
  count: number;
  title?: string;
}

/** One session's documents file. */
export interface Documents {
  title?: string;
  docs: SearchDoc[];
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
  /** How many other streams of the session hold the same text (a prompt handed to a sub-agent, a result copied back): its sub-agent streams. */
  alsoInStreams?: number;
}

/** Each kind one string, however many documents are of it (JSON.parse makes each its own). */
const KIND: Record<string, DocKind> = { text: 'text', 'tool input': 'tool input', 'tool result': 'tool result' };

/**
 * MiniSearch's numbering of its documents: the next short id, and each short id's document id
 * (its own fields, read as its toJSON reads them; the version is pinned).
 */
interface Numbering {
  _nextId: number;
  _documentIds: Map<number, string>;
}
const numbering = (mini: MiniSearch<SearchDoc>) => mini as unknown as Numbering;

/**
 * What a search folds by, kept with each document so that every result folds without its text
 * (`weave search` once read the documents of the sessions it showed, and only their results
 * folded, so the total moved with `--limit`): a digest of the text the document hands on, and
 * the number of its stream within its session (0 the main one).
 */
interface Folding {
  /** 52 bits of the SHA-1 of the handed text: a million documents of one session are not expected to share one. */
  fold: number;
  streamNo: number;
}

/**
 * A document's kind is kept in the index, since a search filters on it before it ranks, and what
 * it folds by (Folding); its session and block are its id (`<session> <block IRI>`), and the rest
 * of a hit (its turn, role, tool, time, stream) is read with the snippet's text from the documents
 * files of the hits shown. Stored here, those fields were 243 MB of the 758 MB index at 1 GB of
 * transcripts; with the sessions' lists of ids, 337 of the 695 MiB that a reader of that index held.
 */
const OPTIONS: Options<SearchDoc> = {
  fields: ['text', 'tool'],
  storeFields: ['kind', 'fold', 'streamNo'],
  // Documents are replaced a session at a time; vacuuming runs when the index is saved.
  autoVacuum: false,
};

/** The manifest name and the path of a session's documents file. */
export function documentsOutput(sessionId: string): { file: string; path: string } {
  return sessionFile('search/documents', sessionId);
}

/** The documents files the manifest names, by session, as the index's sources name them. */
function documentStamps(manifest: Manifest): Map<string, SourceStamp> {
  return new Map(
    documentsFiles(manifest).map(([session, entry]) => [session, { path: entry.file, size: entry.bytes, mtimeMs: 0, head: entry.sha1 }]),
  );
}

/**
 * The index file is a base that whoever opens it brings up to the documents the manifest names,
 * in memory (SearchIndex.open): a live change to one session costs a read of its documents, not a
 * rewrite of the whole index (hundreds of MB for a team's store). The file is written again once
 * it lags behind by more than this share of the documents' bytes, or by more documents files
 * than LAG_FILES (those it lacks, each read by every open, and those it holds no longer: a
 * session whose documents changed counts its new file and its old one).
 */
const LAG_SHARE = 1 / 8;
const LAG_FILES = 64;

/** The documents files the index file lacks or holds no longer, and the bytes of those it lacks (to read). */
function lagOf(was: readonly SourceStamp[], manifest: Manifest): { files: number; bytes: number; total: number } {
  const held = new Map(was.map((s) => [s.path, s.head]));
  const lag = { files: 0, bytes: 0, total: 0 };
  const now = new Set<string>();
  for (const stamp of documentStamps(manifest).values()) {
    now.add(stamp.path);
    lag.total += stamp.size;
    if (held.get(stamp.path) === stamp.head) continue;
    lag.files++;
    lag.bytes += stamp.size;
  }
  for (const path of held.keys()) if (!now.has(path)) lag.files++;
  return lag;
}

/**
 * Whether the index, as SearchIndex.open brings it up to date, holds every session's documents
 * as the manifest names them (and nothing else): its file is at `builtWith`, on the disk, and
 * lags behind the documents by little enough to catch up in memory.
 */
export async function indexIsCurrent(storeDir: string, manifest: Manifest, builtWith: string): Promise<boolean> {
  const entry = manifest.files?.[INDEX_NAME];
  if (!entry || entry.builtWith !== builtWith || !(await exists(join(storeDir, entry.file)))) return false;
  const lag = lagOf(entry.sources ?? [], manifest);
  return lag.files <= LAG_FILES && lag.bytes <= lag.total * LAG_SHARE;
}

export class SearchIndex {
  /** The update under way, if any. */
  private updating: Promise<unknown> = Promise.resolve();

  private constructor(
    readonly storeDir: string,
    private readonly mini: MiniSearch<SearchDoc>,
    private readonly sessions: Record<string, SessionState>,
  ) {}

  /**
   * The index of the store in `storeDir`: the file its manifest names, brought up to the
   * documents the manifest names now (what it lags behind is read and indexed here, in memory).
   * Where there is no such file, or it is of another format, every documents file is read here.
   */
  static async open(storeDir: string, given?: Manifest): Promise<SearchIndex> {
    const manifest = given ?? (await readManifest(storeDir).catch(() => undefined));
    const entry = manifest?.files?.[INDEX_NAME];
    const file = entry && (await readIndexLines(join(storeDir, entry.file)).catch(() => undefined));
    // None, or of another format (a Weave before wrote it): made from the documents files here.
    const index = file ? new SearchIndex(storeDir, file.mini, file.sessions) : SearchIndex.empty(storeDir);
    if (manifest) await index.update(manifest);
    return index;
  }

  static empty(storeDir: string): SearchIndex {
    return new SearchIndex(storeDir, withCompactPostings(new MiniSearch<SearchDoc>({ ...OPTIONS })), {});
  }

  get documentCount(): number {
    return this.mini.documentCount;
  }

  /**
   * Brings the index up to the documents files the manifest names, in memory: a session whose
   * file changed has its documents replaced, one the store no longer has is dropped. One update
   * at a time (two at once would add a session's documents twice). Returns how many changed.
   */
  update(manifest: Manifest): Promise<number> {
    const updated = this.updating.then(() => this.replaceChanged(manifest));
    this.updating = updated.catch(() => undefined);
    return updated;
  }

  private async replaceChanged(manifest: Manifest): Promise<number> {
    const now = documentStamps(manifest);
    let changed = 0;
    for (const [session, stamp] of now) {
      const had = this.sessions[session];
      if (had?.documents === stamp.path && had.sha1 === stamp.head) continue;
      this.drop(session);
      // Added as they are read: a long session's documents are never held all at once.
      const first = numbering(this.mini)._nextId;
      const streams = new Map<string, number>([['', 0]]);
      let title: string | undefined;
      try {
        title = await eachDocument(this.storeDir, stamp.path, (doc) => {
          doc.kind = KIND[doc.kind] ?? doc.kind;
          const stream = doc.stream ?? '';
          let streamNo = streams.get(stream);
          if (streamNo === undefined) streams.set(stream, (streamNo = streams.size));
          const folding: Folding = { fold: foldOf(doc.kind, doc.text), streamNo };
          this.mini.add(Object.assign(doc, folding));
        });
      } catch (e) {
        // A documents file that fails part way leaves none of the session in the index, not part of it.
        this.discard(first, numbering(this.mini)._nextId - first);
        throw e;
      }
      const count = numbering(this.mini)._nextId - first;
      this.sessions[session] = { documents: stamp.path, sha1: stamp.head!, first, count, ...(title === undefined ? {} : { title }) };
      changed++;
    }
    for (const session of Object.keys(this.sessions))
      if (!now.has(session)) {
        this.drop(session);
        changed++;
      }
    return changed;
  }

  /** Writes the index through the store writer, naming the documents files it holds as its sources. */
  async save(writer: StoreWriter, builtWith: string): Promise<void> {
    if (this.mini.dirtCount) await this.mini.vacuum();
    const sources = [...documentStamps(writer.manifest).values()];
    await writer.writeFile(INDEX_NAME, INDEX_FILE, indexLines(this.sessions, this.mini), { builtWith, sources });
  }

  private drop(session: string): void {
    const state = this.sessions[session];
    if (state) this.discard(state.first, state.count);
    delete this.sessions[session];
  }

  /** Discards the documents numbered first … first + count − 1 that the index still holds. */
  private discard(first: number, count: number): void {
    const ids = numbering(this.mini)._documentIds;
    for (let short = first; short < first + count; short++) {
      const id = ids.get(short);
      if (id !== undefined) this.mini.discard(id);
    }
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
      kinds || session ? (r: SearchResult) => (!kinds || kinds.includes(r.kind)) && (!session || sessionOf(r.id) === session) : undefined;
    const ask = (combineWith: 'AND' | 'OR') =>
      this.mini.search(text, {
        combineWith,
        prefix: (term, i, terms) => i === terms.length - 1 && term.length > 2,
        fuzzy: (term) => (term.length > 5 ? 0.15 : 0),
        filter,
      });
    let answer = ask('AND');
    if (!answer.length) answer = ask('OR');
    const results = answer.map(found);
    // A block copied into several sessions (a fork, a copied file) is one hit, at its best score,
    // shown in a copy whose session has a title where one has.
    const copies = new Map<string, number>();
    const kept = new Map<string, number>();
    const unique: Found[] = [];
    for (const r of results) {
      copies.set(r.block, (copies.get(r.block) ?? 0) + 1);
      const at = kept.get(r.block);
      if (at === undefined) kept.set(r.block, unique.push(r) - 1);
      else if (!this.sessions[unique[at].session]?.title && this.sessions[r.session]?.title) unique[at] = { ...r, score: unique[at].score };
    }
    const { top, folded } = foldStreams(unique, limit);
    const documents = await this.documentsOf(top.map(({ r }) => r));
    const hits = top.map(({ r, streams }): Hit => {
      const { score, terms } = r;
      const doc = documents.get(r.id);
      const title = this.sessions[r.session]?.title;
      const others = copies.get(r.block)! - 1;
      return {
        ...stored(r, doc),
        score,
        terms,
        snippet: snippet(doc?.text ?? '', terms),
        ...(title ? { title } : {}),
        ...(others ? { alsoIn: others } : {}),
        ...(streams > 1 ? { alsoInStreams: streams - 1 } : {}),
      };
    });
    return { hits, total: unique.length - folded };
  }

  /** The documents of `results` (the hits shown), by id: only their lines of their sessions' files are parsed. */
  private async documentsOf(results: readonly Found[]): Promise<Map<string, SearchDoc>> {
    const ids = new Map<string, Set<string>>();
    for (const r of results) ids.set(r.session, (ids.get(r.session) ?? new Set()).add(r.id));
    const documents = new Map<string, SearchDoc>();
    for (const [session, wanted] of ids)
      for (const [id, doc] of await readDocs(this.storeDir, this.sessions[session]?.documents, wanted)) documents.set(id, doc);
    return documents;
  }
}

/**
 * An index a server holds in memory for as long as it runs, following the store's manifest: its
 * file read again when the manifest names another, and otherwise the documents it lags behind
 * caught up (ingest rewrites the file only once it lags far behind). A catch-up that fails (a
 * documents file replaced meanwhile) leaves the index in no known state: it is read again.
 */
export class HeldIndex {
  private held?: { file?: string; index: Promise<SearchIndex> };

  constructor(readonly storeDir: string) {}

  /** The index as `manifest` names it (none: the store has none yet, or it could not be read). */
  at(manifest: Manifest | undefined): Promise<SearchIndex> {
    const file = manifest?.files?.[INDEX_NAME]?.file;
    const open = () => SearchIndex.open(this.storeDir, manifest);
    if (!this.held || this.held.file !== file || !manifest) this.held = { file, index: open() };
    else
      this.held.index = this.held.index
        .then(async (index) => {
          await index.update(manifest);
          return index;
        })
        .catch(open);
    return this.held.index;
  }
}

/**
 * The first `limit` hits with one text copied into several streams of a session (its main
 * stream and its sub-agents': a prompt handed down, a result passed on) folded into one, shown
 * where it is in the main stream, counting its streams; and how many results folded. Copies
 * within one stream stay apart: each was written again. Every result folds, by the digest and
 * stream number the index keeps of it, whether or not its hit is shown.
 */
export function foldStreams(results: readonly Found[], limit: number): { top: { r: Found; streams: number }[]; folded: number } {
  const top: { r: Found; streams: Set<number> }[] = [];
  // Each text's hit, by session and digest: its place in `top`, or −1 past the hits shown.
  const byText = new Map<string, { at: number; streams: Set<number> }>();
  let folded = 0;
  for (const r of results) {
    const key = `${r.session}\0${r.fold}`;
    const seen = byText.get(key);
    if (seen && !seen.streams.has(r.streamNo)) {
      seen.streams.add(r.streamNo);
      if (seen.at !== -1 && r.streamNo === 0) top[seen.at].r = { ...r, score: top[seen.at].r.score };
      folded++;
    } else if (!seen) {
      const streams = new Set([r.streamNo]);
      const at = top.length < limit ? top.push({ r, streams }) - 1 : -1;
      byText.set(key, { at, streams });
    } else if (top.length < limit) top.push({ r, streams: new Set([r.streamNo]) });
  }
  return { top: top.map(({ r, streams }) => ({ r, streams: streams.size })), folded };
}

/** The digest a document folds by: 52 bits of the SHA-1 of the text it hands on (handedText). */
function foldOf(kind: string, text: string): number {
  return Number.parseInt(createHash('sha1').update(handedText(kind, text)).digest('hex').slice(0, 13), 16);
}

/**
 * The text a block hands on: a tool input's `prompt` when it has one (the tool that starts a
 * sub-agent states the prompt the sub-agent's stream then begins with), else the block's text.
 */
function handedText(kind: string, text: string): string {
  if (kind !== 'tool input' || !text.includes('"prompt"')) return text;
  try {
    const prompt = (JSON.parse(text) as { prompt?: unknown }).prompt;
    return typeof prompt === 'string' ? prompt : text;
  } catch {
    return text;
  }
}

/**
 * An index entry after the first line (`{"format": …}`): a session's state; a field of MiniSearch's
 * JSON, an array or object field given empty and then an item or a key and value at a time.
 */
type IndexLine =
  | ['session', string, SessionState]
  | ['field', string, unknown]
  | ['item', string, unknown]
  | ['entry', string, string, unknown];

/** MiniSearch's terms as it holds them: each term's postings, by field, then by document (postings.ts). */
type Terms = Iterable<[string, Iterable<[number, Iterable<[number, number]>]>]>;

/**
 * The index file as JSON lines in parts of about 1 MiB, made as they are written: the index of a
 * store with long sessions is more than one string holds. It is MiniSearch's JSON (`toJSON`), but
 * its terms are read a term at a time from the index itself, where `toJSON` copies every term's
 * postings at once: twice the index's memory, at the moment it is largest. (`_index` is
 * MiniSearch's own field, read here as its `toJSON` reads it; the version is pinned.)
 */
function* indexLines(sessions: Record<string, SessionState>, mini: MiniSearch<SearchDoc>): Generator<string> {
  const inner = mini as unknown as { _index: Terms };
  const terms = inner._index;
  let index: object;
  // Every field of the JSON but the terms, which are written below.
  inner._index = [];
  try {
    index = mini.toJSON();
  } finally {
    inner._index = terms;
  }
  const lines = function* (): Generator<IndexLine> {
    for (const [id, state] of Object.entries(sessions)) yield ['session', id, state];
    for (const [key, value] of Object.entries(index)) {
      if (key === 'index') {
        yield ['field', key, []];
        for (const [term, fields] of terms) {
          const postings: Record<string, Record<string, number>> = {};
          for (const [field, freqs] of fields) postings[field] = Object.fromEntries(freqs);
          yield ['item', key, [term, postings]];
        }
      } else if (Array.isArray(value)) {
        yield ['field', key, []];
        for (const item of value) yield ['item', key, item];
      } else if (value && typeof value === 'object') {
        yield ['field', key, {}];
        for (const [k, v] of Object.entries(value)) yield ['entry', key, k, v];
      } else yield ['field', key, value];
    }
  };
  let part = `${JSON.stringify({ format: FORMAT })}\n`;
  for (const line of lines()) {
    part += `${JSON.stringify(line)}\n`;
    if (part.length < 1 << 20) continue;
    yield part;
    part = '';
  }
  if (part) yield part;
}

/**
 * An index file read a line at a time; undefined when of another format (the index is then made
 * again from the documents). Its terms go into the index as they are read, as MiniSearch's `loadJS`
 * puts them, so that the file's JSON and the index are never both held whole.
 */
async function readIndexLines(path: string): Promise<{ sessions: Record<string, SessionState>; mini: MiniSearch<SearchDoc> } | undefined> {
  const sessions: Record<string, SessionState> = {};
  const head: Record<string, unknown> = {};
  let mini: MiniSearch<SearchDoc> | undefined;
  for await (const line of readLines(path)) {
    if (!line.text) continue;
    const value = JSON.parse(line.text);
    if (line.lineNo === 1) {
      if ((value as { format?: string }).format !== FORMAT) return undefined;
      continue;
    }
    const entry = value as IndexLine;
    if (entry[0] === 'session') sessions[entry[1]] = entry[2];
    else if (entry[1] === 'index' && entry[0] === 'field')
      // Every field before the terms is read (indexLines writes them first); the serialization is MiniSearch 7's.
      mini = withCompactPostings(MiniSearch.loadJS({ ...head, index: [], serializationVersion: 2 } as never, { ...OPTIONS }));
    else if (entry[1] === 'index' && entry[0] === 'item' && mini)
      loadTerm(mini, ...(entry[2] as [string, Record<string, Record<string, number>>]));
    else if (entry[0] === 'field') head[entry[1]] = entry[2];
    else if (entry[0] === 'item') (head[entry[1]] as unknown[]).push(entry[2]);
    else if (entry[0] === 'entry') (head[entry[1]] as Record<string, unknown>)[entry[2]] = entry[3];
  }
  return { sessions, mini: mini ?? withCompactPostings(MiniSearch.loadJS({ ...head, index: [] } as never, { ...OPTIONS })) };
}

/**
 * A documents file as JSON lines, in parts of about 1 MiB made as they are written: a first line
 * with the title, then one document a line (a long session's documents are more than one string
 * holds, and never all held as text at once).
 */
export function* documentsText({ docs, ...head }: Documents): Generator<string> {
  let part = `${JSON.stringify(head)}\n`;
  for (const doc of docs) {
    part += `${JSON.stringify(doc)}\n`;
    if (part.length < 1 << 20) continue;
    yield part;
    part = '';
  }
  if (part) yield part;
}

/** A documents file read a line at a time; one written whole (`{"docs": [...]}`, before JSON lines) is read too. */
export async function readDocuments(storeDir: string, path: string): Promise<Documents> {
  const docs: SearchDoc[] = [];
  const title = await eachDocument(storeDir, path, (doc) => docs.push(doc));
  return { docs, ...(title === undefined ? {} : { title }) };
}

/**
 * Each document of a session's documents file in turn, a line at a time; returns the session's
 * title. With `wanted`, a document whose id is not in it is passed over unparsed (its id is read
 * from the start of its line).
 */
async function eachDocument(
  storeDir: string,
  path: string,
  each: (doc: SearchDoc) => void,
  wanted?: ReadonlySet<string>,
): Promise<string | undefined> {
  let title: string | undefined;
  for await (const line of readLines(join(storeDir, path))) {
    if (!line.text) continue;
    if (wanted && line.lineNo > 1) {
      const id = lineId(line.text);
      if (id !== undefined && !wanted.has(id)) continue;
    }
    const value = JSON.parse(line.text);
    if (line.lineNo > 1) each(value as SearchDoc);
    else {
      const head = value as Partial<Documents>;
      if (head.title !== undefined) title = head.title;
      for (const doc of head.docs ?? []) each(doc);
    }
  }
  return title;
}

/**
 * A document line's id without parsing the line: its first field, as the documents derivation
 * writes it (`{"id":"…",`); undefined for a line of another shape, which is then parsed whole.
 */
export function lineId(text: string): string | undefined {
  if (!text.startsWith('{"id":"')) return undefined;
  for (let end = text.indexOf('"', 7); end !== -1; end = text.indexOf('"', end + 1)) {
    let escapes = 0;
    while (text[end - 1 - escapes] === '\\') escapes++;
    if (escapes % 2 === 0) return JSON.parse(text.slice(6, end + 1)) as string;
  }
  return undefined;
}

/**
 * A session's documents of the ids wanted (the hits a search shows), by id; none where its file
 * cannot be read. Only their lines are parsed: a long session's file is most of a search's time
 * (741 MB of documents at 1 GB of transcripts).
 */
async function readDocs(storeDir: string, path: string | undefined, wanted: ReadonlySet<string>): Promise<Map<string, SearchDoc>> {
  const docs = new Map<string, SearchDoc>();
  if (path) await eachDocument(storeDir, path, (doc) => docs.set(doc.id, doc), wanted).catch(() => undefined);
  return docs;
}

/** A result as a search reads it: its session and block from its id (`<session> <block IRI>`; an IRI has no space), its kind as stored. */
export interface Found extends Folding {
  id: string;
  session: string;
  block: string;
  kind: DocKind;
  score: number;
  terms: string[];
}

const sessionOf = (id: string) => id.slice(0, id.lastIndexOf(' '));

function found(r: SearchResult): Found {
  const session = sessionOf(r.id);
  const { fold, streamNo } = r as unknown as Folding;
  return {
    id: r.id,
    session,
    block: r.id.slice(session.length + 1),
    kind: r.kind,
    score: r.score,
    terms: r.terms,
    fold,
    streamNo,
  };
}

/**
 * What a hit tells of its document, in the order the index once stored it: from the session's
 * documents file; where that cannot be read, what the id says (the block stands for its turn).
 */
function stored(r: Found, doc: SearchDoc | undefined): Stored {
  return {
    session: r.session,
    event: doc?.event ?? r.block,
    block: r.block,
    kind: r.kind,
    ...(doc?.role === undefined ? {} : { role: doc.role }),
    ...(doc?.tool === undefined ? {} : { tool: doc.tool }),
    ...(doc?.time === undefined ? {} : { time: doc.time }),
    ...(doc?.stream === undefined ? {} : { stream: doc.stream }),
  };
}
