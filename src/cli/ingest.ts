import { join } from 'node:path';
import { print } from '../client/served.ts';
import { terminalWidth, wrapParts } from '../query/fit.ts';
import { ingest, type IngestReport } from '../ingest.ts';
import type { DeriveReport } from '../derive/loop.ts';
import { READERS } from '../readers/registry.ts';
import { capacityNotice, embeddedStoreSize } from '../store/ceiling.ts';
import { summary as detectSummary, printProblem } from './detect.ts';
import { CONTENT_HELP, CONTENT_OPTIONS, policyFrom } from './content.ts';
import { CliError, COMMON_HELP, outputWidth, parse, soul, storeDir, WIDE_HELP, WIDE_OPTION } from './options.ts';
import { printable } from '../terminal.ts';
import { lockStore } from '../store/writer.ts';
import { keepReading } from './watching.ts';
import { readManifest } from '../store/manifest.ts';
import { REMOTE_FILE } from '../store/layout.ts';
import { exists } from '../acquire/files.ts';
import { progressBar } from './progress.ts';
import { tell } from './tell.ts';
import { checkSources, defaultSources, inFixtures } from './sources.ts';
import { printHelp } from './help.ts';
import { counted } from './counted.ts';

const HELP = `usage: weave ingest [PATH...] [options]

Reads Claude Code transcripts into the store, one named graph per session. A PATH may be a
projects root, a project folder or one .jsonl file (default: $CLAUDE_CONFIG_DIR/projects,
else ~/.claude/projects). Sessions whose files have not changed since the last ingest are
skipped; a session whose files only grew is carried on (only its new lines are read); any
other changed session replaces its graph whole.

Every line read is kept, compressed, in the store's archive (archive/), so a session whose
files Claude Code has deleted stays in the store, verifies and can be read again; such a
session is read once more from the archive and its transcripts marked weave:archivedOnly.

options:
  --force            read every session again
  --rebuild          read every session the store holds again, from its files or, where they
                     are gone, from the archive (after an upgrade of Weave)
  --no-archive       do not keep a copy of what is read (sessions read so lose their archive)
  --watch            keep reading: after this run, read what changes as the file events tell of
                     it (only the new lines of a grown session), the readers once things are
                     quiet; Ctrl-C ends it
  --no-detect        do not run the readers (weave detect) on what changed
  --jobs N           read N sessions at once, each in a thread of its own (default: one per
                     core, up to 8, when there are at least 8 MB to read; 1: one at a time)
  --json             print the report as JSON
${WIDE_HELP}
${CONTENT_HELP}
${COMMON_HELP}
`;

const OPTIONS = {
  ...CONTENT_OPTIONS,
  force: { type: 'boolean' },
  rebuild: { type: 'boolean' },
  'no-archive': { type: 'boolean' },
  watch: { type: 'boolean' },
  json: { type: 'boolean' },
  'no-detect': { type: 'boolean' },
  jobs: { type: 'string' },
  ...WIDE_OPTION,
} as const;
type Values = ReturnType<typeof parse<typeof OPTIONS>>['values'];

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, OPTIONS);
  if (values.help) {
    printHelp(HELP);
    return 0;
  }
  const dir = storeDir(values);
  // A rebuild with no PATH reads the store's sessions where it read them from.
  const paths = positionals.length ? positionals : values.rebuild ? await existingRoots(dir) : (await defaultSources(false)).paths;
  await checkSources(paths);
  const note = (text: string) => tell(process.stderr, `weave ingest: note: ${text}`);
  // An external store written as "local" before machines had souls: another machine writing there as "local" replaces its graphs.
  if ((await exists(join(dir, REMOTE_FILE))) && (await readManifest(dir))?.soul === 'local')
    note(
      'this external store is written under soul "local", as every machine that wrote to one before souls was: their sessions are the same graphs there, the last write wins. To move this machine to a soul of its own, copy remote.json from this store directory into an empty one and ingest with --store that directory (a new store gets this machine\'s soul), then drop the urn:soul:local: graphs from the external store',
    );
  // One hold of the lock for the ingest and the readers after it: no other writer comes between.
  const lock = await lockStore(dir, { onNote: note });
  // Ctrl-C: the sessions being read are finished and all that was read is stored; a second one stops at once.
  const stop = new AbortController();
  const interrupted = () => {
    stop.abort();
    tell(process.stderr, 'weave ingest: stopping after the sessions being read (Ctrl-C again stops at once)');
  };
  process.once('SIGINT', interrupted);
  try {
    const code = await ingestAndDetect(paths, dir, values, { readers: !values['no-detect'], stop: stop.signal });
    process.off('SIGINT', interrupted);
    // Watching an empty folder waits for its first session; a single run with nothing to read is an error.
    if (stop.signal.aborted || (code && !values.watch)) return code;
    if (values.watch) {
      // Later runs say only what they read, one line each.
      const log = (line: string) => tell(process.stderr, `weave ingest: ${line}`);
      await keepReading(
        paths,
        async (readers) => {
          await ingestAndDetect(
            paths,
            dir,
            { ...values, rebuild: false, force: false },
            { readers: readers && !values['no-detect'], live: true },
          );
        },
        { log },
      );
    }
    return 0;
  } finally {
    await lock.release();
  }
}

function jobsOf(jobs: string | undefined): number | undefined {
  if (jobs === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(jobs) || Number(jobs) > 64)
    throw new CliError(`--jobs must be a number of threads from 1 to 64, not "${jobs}"`, 2);
  return Number(jobs);
}

async function ingestAndDetect(
  paths: string[],
  dir: string,
  values: Values,
  // `live`: a run of --watch after the first, which says only what it read.
  { readers, live = false, stop }: { readers: boolean; live?: boolean; stop?: AbortSignal },
): Promise<number> {
  const bar = live ? { update: () => undefined, done: () => undefined } : progressBar();
  const report = await ingest(paths, {
    storeDir: dir,
    soul: await soul(values, dir, (made, path) =>
      tell(
        process.stderr,
        `weave ingest: note: this machine's soul is ${made} (kept in ${path}): its sessions are urn:soul:${made}:… in the external store; --soul ID names another`,
      ),
    ),
    force: values.force,
    rebuild: values.rebuild,
    jobs: jobsOf(values.jobs),
    live,
    archive: !values['no-archive'],
    content: policyFrom(values),
    onProgress: bar.update,
    stop,
    onNote: (text) => {
      bar.done();
      tell(process.stderr, `weave ingest: note: ${printable(text)}`);
    },
    onProblem: (p) => {
      bar.done();
      tell(
        process.stderr,
        `${printable(p.path)}${p.lineNo ? `:${p.lineNo}` : ''}: ${p.kind}: ${printable(p.message)}${inFixtures(p.path) ? ' (broken on purpose in the fixtures)' : ''}`,
      );
    },
    // The readers read each session as it is written, and every other session where a reader changed.
    readers: readers
      ? {
          list: READERS,
          onProblem: (p) => {
            bar.done();
            printProblem(p);
          },
        }
      : undefined,
  });
  bar.done();
  if (report.searchIndex)
    tell(
      process.stderr,
      `weave ingest: the search index was not updated (${report.searchIndex}); weave search reads the new sessions again`,
    );
  for (const line of derivationProblems(report.derived)) tell(process.stderr, line);
  const held = report.heldElsewhere ?? [];
  if (held.length) tell(process.stderr, `weave ingest: note: ${heldNote(held)}`);
  // Sessions found but not stored (each named on stderr already) are no reason to say there were none.
  if (report.sessions + report.skipped + report.failed + report.unreadable + held.length === 0 && !stop?.aborted) {
    if (live) return 1;
    tell(
      process.stderr,
      `weave ingest: no Claude Code transcripts (.jsonl files) under ${paths.join(', ')}; name a projects root (~/.claude/projects), a project folder or one .jsonl file`,
    );
    return 1;
  }
  const detected = report.readers;
  // How full one embedded copy would be with this store, from 80% of it on (an external store has no such bound).
  const size = await embeddedStoreSize(dir);
  const notice = size && capacityNotice(size);
  if (notice) tell(process.stderr, `weave ingest: ${notice}`);
  if (values.json)
    await print({ stdout: `${JSON.stringify(detected ? { ...report, detect: detected } : report, null, 2)}\n`, form: 'code' });
  else {
    // A run while watching says only what it did.
    const width = outputWidth(values);
    const lines: string[] = [];
    if (!live || report.sessions) lines.push(`${summary(report, width)}\n`);
    if (detected && (!live || detected.graphs)) lines.push(`${detectSummary(detected, width)}\n`);
    const ran = derivedSummary(report.derived, width);
    if (ran && (!live || report.sessions)) lines.push(`${ran}\n`);
    await print({ stdout: lines.join('') });
  }
  if (stop?.aborted) {
    tell(
      process.stderr,
      `weave ingest: stopped: ${counted(report.sessions, 'session')} read and stored by this run (${report.skipped} unchanged), ${report.notRead ?? 0} left; run the same command again to carry on (what is stored is not read again)`,
    );
    return 130;
  }
  // A session that failed inside Weave is a bug to hear of; unreadable files and odd lines are
  // not, unless no session at all could be read.
  return report.failed || (report.unreadable && report.sessions + report.skipped === 0) ? 1 : 0;
}

/** Sessions another soul holds in the external store, by soul: a copy is one session, so they are not added again. */
function heldNote(held: { sessionId: string; soul: string }[]): string {
  const bySoul = new Map<string, number>();
  for (const h of held) bySoul.set(h.soul, (bySoul.get(h.soul) ?? 0) + 1);
  const souls = [...bySoul].map(([soul, n]) => `${n} under soul ${soul}`).join(', ');
  const one = held.length === 1 ? ` (${held[0].sessionId})` : '';
  return `${held.length} session(s)${one} already in the external store, read on another machine: ${souls}; a session copied between machines is one session, so not added again (weave verify checks them against that copy)`;
}

async function existingRoots(dir: string): Promise<string[]> {
  const roots: string[] = [];
  for (const root of (await readManifest(dir))?.roots ?? []) if (await exists(root)) roots.push(root);
  return roots;
}

function summary(r: IngestReport, width: number): string {
  const mb = r.bytes / 1e6;
  const secs = r.millis / 1000;
  const parts = [
    `${counted(r.sessions, 'session')} read (${r.carriedOn ? `${r.carriedOn} of them only their new lines; ` : ''}${r.skipped} unchanged)`,
    counted(r.files, 'file'),
    `${r.records.toLocaleString('en')} records`,
    `${r.quads.toLocaleString('en')} quads`,
    `${mb.toFixed(1)} MB in ${secs.toFixed(1)} s (${(mb / Math.max(secs, 0.001)).toFixed(1)} MB/s)`,
  ];
  if (r.malformed) parts.push(counted(r.malformed, 'malformed line'));
  if (r.pending) parts.push(`${counted(r.pending, 'line')} still being written`);
  if (r.archived) parts.push(`${(r.archived / 1e6).toFixed(1)} MB archived`);
  if (r.external)
    parts.push(
      `${counted(r.external.graphs, 'graph')} sent to the external store${r.external.bulk ? ` (${r.external.bulk} by its bulk loader)` : ''}`,
    );
  if (r.archivedOnly) parts.push(`${counted(r.archivedOnly, 'session')} read from the archive (their files are gone)`);
  if (r.unarchived.length) parts.push(`${counted(r.unarchived.length, 'session')} with files gone and no archive (kept as they are)`);
  if (r.warnings) parts.push(`${counted(r.warnings, 'field')} kept as JSON only`);
  if (r.heldElsewhere?.length) parts.push(`${r.heldElsewhere.length} held under another soul`);
  if (r.unreadable) parts.push(`${counted(r.unreadable, 'session')} unreadable`);
  if (r.failed) parts.push(`${counted(r.failed, 'session')} failed`);
  return wrapParts('ingested:', parts, width);
}

/**
 * The derivations that failed, a line each, but the readers' (said as they fail) and the search
 * index's (said above): the links across sessions, say, or one session's usage rows. Each keeps
 * its last output.
 */
export function derivationProblems(d: DeriveReport): string[] {
  return d.problems
    .filter((p) => !p.derivation.startsWith('search/') && !READERS.some((r) => r.name === p.derivation))
    .map((p) =>
      printable(
        `weave ingest: ${p.derivation}${p.sessionId ? ` of session ${p.sessionId}` : ''} was not derived (${p.message}); its last output stays`,
      ),
    );
}

/**
 * Which derivations ran and why, one line (`derived: tool/error 220 (version changed)`), when any ran
 * for more than the sessions read: a derivation new to the store, or of a new version.
 */
export function derivedSummary(d: DeriveReport, width = terminalWidth()): string | undefined {
  if (Object.values(d.ran).every((r) => Object.keys(r.why).every((why) => why === 'input changed'))) return undefined;
  const parts = Object.entries(d.ran).map(
    ([name, r]) =>
      `${name} ${r.runs} (${Object.entries(r.why)
        .map(([why, n]) => (n === r.runs ? why : `${n} ${why}`))
        .join(', ')})`,
  );
  return parts.length ? wrapParts('derived:', parts, width) : undefined;
}
