import { redactLine } from './readers/redact.ts';
import { SECRETS_REDACTED } from './emit/content.ts';
import type { LineProblem } from './acquire/problems.ts';
import { readFile, stat } from 'node:fs/promises';
import { discoverSessions } from './acquire/discover.ts';
import { canonicalPath } from './acquire/files.ts';
import { archivedLines } from './acquire/archived.ts';
import { readLines, type SourceLine } from './acquire/lines.ts';
import { archivedVersions, type ArchivedFile, type SourceStamp } from './store/manifest.ts';
import { digestFile } from './store/digest.ts';
import { transcriptsOf } from './dialect/dialect.ts';
import { encodingOf, measure, resolvePointer, sha256, SIDE_FILE_LINE } from './emit/content.ts';
import { noStoreLine } from './store/fixtures.ts';
import { HeldTranscripts, type Declaration, type HeldTranscript, type Select } from './verify-held.ts';
import { readManifest } from './store/manifest.ts';
import { openQueries, selectRows } from './store/queries.ts';
import { sessionTitlePattern } from './model/session-title.ts';
import { checkStore, type StoreCheck } from './store/check.ts';

/**
 * `weave verify`: reads the sources again and proves against the store that every non-empty
 * line of every transcript is accounted for (an Event read from that line, a replayed copy, a
 * malformed line or a line still being written), that every stored text's length and SHA-256
 * match the source, and that the bytes ingest read of each file are still its first bytes (a
 * file edited in place since is caught even where its lines still parse). The store is asked
 * which graph holds each file, then for the lines and texts of one graph at a time
 * (verify-held.ts); each source line is then checked in memory. A file that cannot be read is
 * reported and the others are checked all the same.
 */

interface VerifyOptions {
  storeDir: string;
  /** Files or folders to check; default: every source the store was built from, and the folders it was read from. */
  paths?: string[];
  /** Answers the store's SELECTs as rows of plain values (a running server); default: the store opened here. */
  select?: Select;
  /** Check only the store against itself (manifest and graph files); read no source. */
  selfOnly?: boolean;
  /** Files checked so far of those to check, once they are known and after each. */
  onProgress?: (checked: number, total: number) => void;
}

export interface FileCheck {
  path: string;
  session: string;
  inStore: boolean;
  /** The file is not the size it was when it was read (it grew, or was rewritten). */
  changedSinceIngest: boolean;
  /** The bytes ingest read of it are no longer its first bytes: it was edited, cut short or replaced since. */
  rewritten?: boolean;
  /** The file could not be read (why, as the system says it: never its content). */
  unreadable?: string;
  /** The file is gone from its folder: its lines were read from the store's archive of it. */
  fromArchive?: boolean;
  /** The soul whose graph holds the file, when not the store's own (a session copied from another machine, held once). */
  heldBy?: string;
  lines: number;
  events: number;
  replayed: number;
  malformed: number;
  pending: number;
  /** Non-empty lines the store has nothing for. */
  missing: number[];
  /** Content declarations checked, and how many of them are not held whole. */
  contents: number;
  cut: number;
  mismatches: LineProblem[];
}

export interface SessionRow {
  session: string;
  /** The session's title (weave:title of its main transcript), where it has one. */
  title?: string;
  files: number;
  lines: number;
  events: number;
  replayed: number;
  malformed: number;
  pending: number;
  missing: number;
  contents: number;
  cut: number;
  mismatched: number;
}

export interface VerifyReport {
  ok: boolean;
  /** The store against itself: the manifest's files, their lengths and quad counts, and files it does not name. */
  store: StoreCheck;
  sessions: SessionRow[];
  files: FileCheck[];
  /** Sources the store names that are no longer on disk, and that the archive does not hold: not checked. */
  gone: string[];
  /** Files that are not transcripts (workflow journals): not checked line by line. */
  notTranscripts: string[];
  /** Earlier versions of source files the archive keeps (replaced, cut short or rewritten since read), and the lines read of them. */
  versions: { files: number; versions: number; lines: number };
  millis: number;
}

export async function verify(options: VerifyOptions): Promise<VerifyReport> {
  const started = performance.now();
  const self = await checkStore(options.storeDir);
  const none = { files: 0, versions: 0, lines: 0 };
  if (options.selfOnly)
    return {
      ok: self.ok,
      store: self,
      sessions: [],
      files: [],
      gone: [],
      notTranscripts: [],
      versions: none,
      millis: performance.now() - started,
    };
  const manifest = await readManifest(options.storeDir);
  if (!manifest) throw new Error(await noStoreLine(options.storeDir));
  const select = options.select ?? (await openedHere(options.storeDir));

  const named = options.paths?.length
    ? options.paths
    : [...new Set(Object.values(manifest.graphs).flatMap((g) => (g.sessionId ? (g.sources ?? []).map((s) => s.path) : [])))].filter((p) =>
        p.endsWith('.jsonl'),
      );
  const present: string[] = [];
  let gone: string[] = [];
  for (const path of named)
    ((await stat(path).then(
      () => true,
      () => false,
    ))
      ? present
      : gone
    ).push(path);
  if (options.paths?.length && gone.length) throw new Error(`${gone[0]}: no such file or folder`);
  // A transcript Claude Code deleted is checked against the archive's copy of it.
  const archives = new Map<string, ArchivedFile>();
  const stamps = new Map<string, SourceStamp>();
  const versions = { ...none };
  const sessionOf = new Map<string, string>();
  for (const entry of Object.values(manifest.graphs))
    if (entry.sessionId && !entry.reader)
      for (const s of entry.sources ?? []) {
        stamps.set(s.path, s);
        sessionOf.set(s.path, entry.sessionId);
        if (s.archive) archives.set(s.path, s.archive);
      }
  for (const entry of Object.values(manifest.graphs))
    for (const file of entry.sessionId && !entry.reader ? archivedVersions(entry) : []) {
      versions.files++;
      versions.versions += file.versions.length;
      versions.lines += file.versions.reduce((n, v) => n + v.lines, 0);
    }
  // Transcripts stored with --redact-secrets: their source is redacted the same way before it is compared.
  const redacted = new Set<string>();
  for (const entry of Object.values(manifest.graphs))
    if (entry.sessionId && !entry.reader && entry.builtWith?.includes(SECRETS_REDACTED))
      for (const s of entry.sources ?? []) redacted.add(s.path);
  const archivedGone = gone.filter((path) => archives.has(path));
  gone = gone.filter((path) => !archives.has(path));
  // The folders the store was read from: a transcript there that the store lacks is missing from it.
  const roots = options.paths?.length ? [] : await existing(manifest.roots ?? []);

  const sessions = present.length || roots.length ? await discoverSessions([...present, ...roots]) : [];
  const held = await HeldTranscripts.of(select, manifest.soul);
  // Each file to check, by what the store holds of it: those it holds are checked a few graphs at a time.
  const files: FileCheck[] = [];
  const checks = new Map<HeldTranscript, (() => Promise<FileCheck>)[]>();
  const plan = (of: HeldTranscript, check: () => Promise<FileCheck>) => checks.set(of, [...(checks.get(of) ?? []), check]);
  const notTranscripts: string[] = [];
  // The path the store keys a file by: ingest keys it by its folders' real path (canonicalPath, as
  // discovery names it here), but a store may key it by a path that is a link now (a folder moved
  // and linked back, a store written before).
  let byCanonical: Map<string, string> | undefined;
  const asRead = async (path: string) => {
    if (stamps.has(path)) return path;
    byCanonical ??= await byCanonicalPath(stamps.keys());
    return byCanonical.get(path) ?? path;
  };
  for (const session of sessions) {
    notTranscripts.push(...session.journals);
    for (const { path, metaPath } of transcriptsOf(session)) {
      const read = await asRead(path);
      const of = held.find(read, session.sessionId);
      const check = async () => {
        const checked = await checkSource(path, of, session.sessionId, stamps.get(read), redacted.has(read), metaPath);
        return of?.soul && of.soul !== manifest.soul ? { ...checked, heldBy: of.soul } : checked;
      };
      if (of) plan(of, check);
      else files.push(await check());
    }
  }
  for (const path of archivedGone) {
    // What the store holds as a transcript; anything else archived is a journal.
    const of = held.find(path, sessionOf.get(path) ?? '');
    if (!of) notTranscripts.push(path);
    else
      plan(of, async () => ({
        ...(await checkFile(path, of, of.session, redacted.has(path), archivedLines(options.storeDir, archives.get(path)!))),
        fromArchive: true,
      }));
  }
  const total = files.length + [...checks.values()].reduce((n, list) => n + list.length, 0);
  options.onProgress?.(files.length, total);
  await held.inBatches(checks.keys(), select, async (batch) => {
    for (const t of batch)
      for (const check of checks.get(t) ?? []) {
        files.push(await check());
        options.onProgress?.(files.length, total);
      }
  });
  files.sort((a, b) => a.session.localeCompare(b.session) || a.path.localeCompare(b.path));
  const rows = sessionRows(files);
  const titles = await sessionTitles(select);
  for (const row of rows) if (titles.has(row.session)) row.title = titles.get(row.session);
  const ok = self.ok && files.every((f) => f.inStore && !f.missing.length && !f.mismatches.length && !f.rewritten && !f.unreadable);
  return {
    ok,
    store: self,
    sessions: rows,
    files,
    gone: gone.sort(),
    notTranscripts: notTranscripts.sort(),
    versions,
    millis: performance.now() - started,
  };
}

/**
 * One source file checked: its lines against the store, and the bytes ingest read of it against
 * their digests. A file that cannot be read is reported as such; the others are checked still.
 */
async function checkSource(
  path: string,
  stored: HeldTranscript | undefined,
  session: string,
  stamp: SourceStamp | undefined,
  redacted: boolean,
  sideFile?: string,
): Promise<FileCheck> {
  try {
    const check = await checkFile(path, stored, session, redacted);
    await checkSideFile(sideFile, stored, redacted, check);
    if (stored && stamp?.digest && !(await digestFile(path, stamp.digest.bytes, stamp.digest.chunks))) {
      check.rewritten = true;
    }
    return check;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ...emptyCheck(path, stored, session), unreadable: code ? `cannot be read (${code})` : 'cannot be read' };
  }
}

/** Each of `paths` by the path ingest would key it by now. */
async function byCanonicalPath(paths: Iterable<string>): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const path of paths) {
    const canonical = await canonicalPath(path);
    if (!found.has(canonical)) found.set(canonical, path);
  }
  return found;
}

async function existing(paths: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const path of paths)
    if (
      await stat(path).then(
        () => true,
        () => false,
      )
    )
      found.push(path);
  return found;
}

/** The store opened in this process (or its external store), answering SELECTs. */
async function openedHere(storeDir: string): Promise<Select> {
  const queries = await openQueries(storeDir);
  return (query) => selectRows(queries, query);
}

/** Each session's title, as the lists give it (model/session-title.ts). */
async function sessionTitles(select: Select): Promise<Map<string, string>> {
  const rows = await select(
    `SELECT ?session (MAX(?name) AS ?title) WHERE { GRAPH ?g { ?t weave:sessionId ?session . ${sessionTitlePattern('?t', '?name')} } } GROUP BY ?session`,
  );
  return new Map(rows.map((r) => [r.session, r.title]));
}

async function checkFile(
  path: string,
  stored: HeldTranscript | undefined,
  discovered: string,
  redacted: boolean,
  source: AsyncIterable<SourceLine> = readLines(path),
): Promise<FileCheck> {
  const check = emptyCheck(path, stored, discovered);
  let size = 0;
  for await (const line of source) {
    size = line.offset + line.byteLength + (line.terminated ? 1 : 0);
    if (!line.text.trim()) continue;
    check.lines++;
    const kind = stored?.lines.get(line.lineNo);
    if (!kind) {
      check.missing.push(line.lineNo);
      continue;
    }
    check[kind === 'event' ? 'events' : kind]++;
    const declarations = stored?.contents.get(line.lineNo);
    if (declarations?.length)
      checkContents(line.lineNo, redacted ? redactLine(line.text) : line.text, declarations, check, { malformed: kind === 'malformed' });
  }
  check.changedSinceIngest = !!stored && stored.byteLength !== undefined && stored.byteLength !== size;
  return check;
}

function emptyCheck(path: string, stored: HeldTranscript | undefined, discovered: string): FileCheck {
  return {
    path,
    session: stored?.session ?? discovered,
    inStore: !!stored,
    changedSinceIngest: false,
    lines: 0,
    events: 0,
    replayed: 0,
    malformed: 0,
    pending: 0,
    missing: [],
    contents: 0,
    cut: 0,
    mismatches: [],
  };
}

/**
 * Each declared text against the source: its length always, its digest where it is not held
 * whole. A malformed line is no JSON: its one text is the line as it is (pointer "").
 */
function checkContents(
  lineNo: number,
  text: string,
  declarations: Declaration[],
  check: FileCheck,
  { malformed = false, path = check.path } = {},
): void {
  let record: unknown = text;
  if (!malformed)
    try {
      record = JSON.parse(text);
    } catch {
      check.mismatches.push({ path, lineNo, kind: 'mismatch', message: 'the store has texts for a line that is not a record' });
      return;
    }
  for (const d of declarations) {
    check.contents++;
    if (d.state !== 'available') check.cut++;
    const problem = contentProblem(resolvePointer(record, d.pointer), d);
    if (problem) check.mismatches.push({ path, lineNo, kind: 'mismatch', pointer: d.pointer, message: problem });
  }
}

/**
 * The texts of a transcript's side file (a sub-agent's `.meta.json`), declared at line 0, against
 * that file as ingest read it: its byte-order mark dropped, redacted when the store was.
 */
async function checkSideFile(
  path: string | undefined,
  stored: HeldTranscript | undefined,
  redacted: boolean,
  check: FileCheck,
): Promise<void> {
  const declarations = stored?.contents.get(SIDE_FILE_LINE);
  if (!declarations?.length) return;
  const mismatch = (message: string) =>
    check.mismatches.push({ path: path ?? check.path, lineNo: SIDE_FILE_LINE, kind: 'mismatch', message });
  if (!path) return void mismatch('the store has texts of a side file the transcript no longer has');
  let text: string;
  try {
    text = (await readFile(path, 'utf8')).replace(/^\uFEFF/, '');
  } catch (e) {
    return void mismatch(`its side file cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  checkContents(SIDE_FILE_LINE, redacted ? redactLine(text) : text, declarations, check, { path });
}

function contentProblem(value: unknown, d: Declaration): string | undefined {
  if (value === undefined) return 'declared content is not in the record';
  switch (d.state) {
    case 'redacted':
      return undefined;
    case 'size_only':
      return value === d.byteLength ? undefined : `the recorded size is ${String(value)}, the store says ${d.byteLength}`;
    case 'unavailable':
      return value === '' ? undefined : 'declared unavailable, but the record has it';
  }
  const bytes = measure(value, encodingOf(d.property));
  if (!bytes) return `the value is not ${encodingOf(d.property) === 'json' ? 'JSON' : 'a string'}`;
  if (bytes.length !== d.byteLength) return `${bytes.length} bytes in the source, ${d.byteLength} declared`;
  if (d.state !== 'available' && !d.sha256) return `a ${d.state} text without its SHA-256`;
  // A text held whole is compared by the SHA-256 of its literal: as long, other bytes is another text.
  if (d.sha256 && sha256(bytes) !== d.sha256) return 'the SHA-256 differs';
  return undefined;
}

/** A row with nothing counted yet: a session's, or the total's. */
export function emptyRow(session: string): SessionRow {
  return { session, files: 0, lines: 0, events: 0, replayed: 0, malformed: 0, pending: 0, missing: 0, contents: 0, cut: 0, mismatched: 0 };
}

function sessionRows(files: FileCheck[]): SessionRow[] {
  const bySession = new Map<string, SessionRow>();
  for (const f of files) {
    let row = bySession.get(f.session);
    if (!row) bySession.set(f.session, (row = emptyRow(f.session)));
    row.files++;
    row.lines += f.lines;
    row.events += f.events;
    row.replayed += f.replayed;
    row.malformed += f.malformed;
    row.pending += f.pending;
    row.missing += f.missing.length;
    row.contents += f.contents;
    row.cut += f.cut;
    row.mismatched += f.mismatches.length;
  }
  return [...bySession.values()];
}
