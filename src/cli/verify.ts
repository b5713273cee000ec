import { print } from '../client/served.ts';
import { selectRows } from '../client/server.ts';
import { NO_DAEMON_HELP, noDaemon, residentServer } from '../client/daemon.ts';
import { emptyRow, verify, type FileCheck, type SessionRow, type VerifyReport } from '../verify.ts';
import { displayWidth, fitTable, wrapWords, type Column } from '../query/fit.ts';
import { CliError, COMMON_HELP, outputWidth, parse, storeDir, WIDE_HELP, WIDE_OPTION, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';
import { verifyBar } from './progress.ts';
import { counted } from './counted.ts';

const HELP = `usage: weave verify [PATH...] [options]

Reads the transcripts again and proves against the store that every non-empty line of every
file is accounted for (an event, a replayed copy, a malformed line or a line still being
written), that every stored text's length and SHA-256 match the source, and that the bytes
ingest read of each file are still its first bytes. First it checks the store against itself:
every file the manifest names is there, as long as it says, with the bytes it names (by their
SHA-1) and as many quads as it counts, and every graph file is named by the manifest. A file
that cannot be read is reported, and the rest are checked. Prints a table per session and exits 1 when
anything is missing or differs. PATH: files or folders to check (default: every source the
store was built from, and every transcript in the folders it was read from). The store's side
is asked of the store's server: a weave serve, or when none runs, a resident one this command
starts (see weave query --help).

options:
  --self             check only the store against itself; read no source
  --json             print the report as JSON
${WIDE_HELP}
${NO_DAEMON_HELP}
${COMMON_HELP}
`;

/** Problems listed per file before "… N more". */
const SHOWN = 5;

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    json: { type: 'boolean' },
    self: { type: 'boolean' },
    'no-daemon': { type: 'boolean' },
    ...WIDE_OPTION,
  });
  if (values.help) {
    printHelp(HELP);
    return 0;
  }
  if (values.self && positionals.length) throw new CliError('--self checks the store against itself; it takes no PATH', 2);
  const dir = storeDir(values);
  await sayEmitter(dir);
  // The store's server has it open: it answers the two queries, and nothing is loaded here.
  const server = values.self || noDaemon(values) ? undefined : await residentServer(dir, { command: 'verify' });
  const progress = verifyBar();
  const report = await verify({
    storeDir: dir,
    paths: positionals,
    selfOnly: values.self,
    select: server && ((query) => selectRows(server, query)),
    onProgress: progress.update,
  }).finally(progress.done);
  await print(
    values.json
      ? { stdout: `${JSON.stringify(report, null, 2)}\n`, form: 'code' }
      : { stdout: render(report, outputWidth(values), values.self) },
  );
  return report.ok ? 0 : 1;
}

const COLUMNS: [keyof SessionRow, string][] = [
  ['session', 'Session'],
  ['files', 'Files'],
  ['lines', 'Lines'],
  ['events', 'Events'],
  ['replayed', 'Replayed'],
  ['malformed', 'Malformed'],
  ['pending', 'Pending'],
  ['missing', 'Missing'],
  ['contents', 'Texts'],
  ['cut', 'Partial'],
  ['mismatched', 'Differ'],
];

const n = (v: number) => v.toLocaleString('en');

/** Lines of one kind shown before "… N more". */
const LISTED = 20;

function render(report: VerifyReport, width = Number.POSITIVE_INFINITY, selfOnly = false): string {
  const self = report.store;
  const listed = (lines: string[]) => (lines.length > LISTED ? [...lines.slice(0, LISTED), `… ${lines.length - LISTED} more`] : lines);
  const store = [...listed(self.problems), ...listed(self.notes.map((n) => `note: ${n}`))];
  const storeLine = self.ok
    ? `store: ${n(self.graphs)} graphs in ${n(self.files)} files${self.storeFiles ? ` and ${n(self.storeFiles)} other files` : ''}, each of the length and digests the manifest names, with the quads it counts; no file it does not name`
    : `store NOT consistent: ${self.problems.length} problem(s)`;
  if (selfOnly) return `${[...store, storeLine].join('\n')}\n`;
  const total = emptyRow('Total');
  for (const row of report.sessions) for (const [key] of COLUMNS.slice(1)) (total[key] as number) += row[key] as number;
  // In a terminal (a width to fit) a count that is 0 in every session is left out, said under
  // the table, and a session is named by the start of its id.
  const narrow = Number.isFinite(width);
  const shown = COLUMNS.filter(([key], i) => i === 0 || !narrow || (total[key] as number) > 0);
  // A session's id by its first 8 characters (and its copy's suffix, `~hash`), as `weave conversation` takes it.
  const id = (session: string) =>
    narrow && session.length > 8 ? `${session.slice(0, 8)}…${session.includes('~') ? session.slice(session.indexOf('~')) : ''}` : session;
  const cells = (row: SessionRow) => [
    ...shown.map(([key]) => (key === 'session' ? id(row.session) : n(row[key] as number))),
    row.title ?? '',
  ];
  // As weave usage's tables: the title is cut to fit, and left out (and said so) when the counts leave it no room.
  const columns: Column[] = [
    ...shown.map(([, head], i): Column => ({ head, align: i ? 'right' : 'left' })),
    { head: 'Title', shrink: true },
  ];
  const out = fitTable(columns, [...report.sessions.map(cells), 'rule', [...cells(total).slice(0, -1)]], width);
  if (shown.length < COLUMNS.length)
    out.push(
      `(0 in every session: ${COLUMNS.filter((c) => !shown.includes(c))
        .map(([, head]) => head)
        .join(', ')})`,
    );
  out.push(...listed(report.files.flatMap(problems)));
  out.push(...store, storeLine);
  const archived = report.files.filter((f) => f.fromArchive).length;
  if (archived) out.push(`${archived} file(s) the store was built from are gone: checked against the archive's copy`);
  const held = new Map<string, Set<string>>();
  for (const f of report.files) if (f.heldBy) held.set(f.heldBy, (held.get(f.heldBy) ?? new Set()).add(f.session));
  for (const [soul, sessions] of held)
    out.push(`${sessions.size} session(s) copied from another machine are held once, under soul ${soul}: checked against its copy`);
  if (report.gone.length)
    out.push(`${report.gone.length} source file(s) the store was built from are gone, and not in the archive; not checked`);
  if (report.notTranscripts.length)
    out.push(`${report.notTranscripts.length} workflow journal(s) are not transcripts; not checked line by line`);
  const v = report.versions;
  if (v.versions)
    out.push(
      `${v.versions} earlier version(s) of ${v.files} file(s) kept in the archive (${v.lines.toLocaleString('en')} lines read of them); the graph holds the files as they are now`,
    );
  const unreadable = report.files.filter((f) => f.unreadable).length;
  const rewritten = report.files.filter((f) => f.rewritten).length;
  out.push(
    report.ok
      ? `verified: ${counted(total.lines, 'line')} in ${counted(total.files, 'file')} accounted for; ${counted(total.contents, 'text')} ${total.contents === 1 ? 'matches its' : 'match their'} source (${n(total.cut)} not held whole)`
      : `NOT verified: ${n(total.missing)} lines unaccounted for, ${n(total.mismatched)} texts differ, ${counted(report.files.filter((f) => !f.inStore).length, 'file')} not in the store${rewritten ? `, ${rewritten} changed in place since ingest` : ''}${unreadable ? `, ${unreadable} that cannot be read` : ''}${self.ok ? '' : ', the store not consistent'}`,
  );
  return `${out.flatMap((line) => (displayWidth(line) > width ? wrapWords(line, 0, '  ', width) : [line])).join('\n')}\n`;
}

/** What is wrong with one file, by line (never the line's content). */
function problems(file: FileCheck): string[] {
  const out: string[] = [];
  if (file.unreadable) out.push(`${file.path}: ${file.unreadable}; not checked`);
  else if (!file.inStore) out.push(`${file.path}: not in the store`);
  else {
    const more = (n: number) => (n > SHOWN ? [`${file.path}: … ${n - SHOWN} more`] : []);
    if (file.rewritten)
      out.push(`${file.path}: its bytes ingest read have changed since (edited in place, cut short or replaced; run weave ingest)`);
    else if (file.missing.length && file.changedSinceIngest) out.push(`${file.path}: changed since it was ingested (run weave ingest)`);
    out.push(...file.missing.slice(0, SHOWN).map((n) => `${file.path}:${n}: not in the store`), ...more(file.missing.length));
    out.push(
      ...file.mismatches.slice(0, SHOWN).map((m) => `${file.path}:${m.lineNo}: ${m.pointer ?? ''} ${m.message}`.replace(/: +/, ': ')),
      ...more(file.mismatches.length),
    );
  }
  return out;
}
