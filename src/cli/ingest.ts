import { ingest, type IngestReport } from '../ingest.ts';
import { detect } from '../readers/detect.ts';
import { summary as detectSummary, printProblem } from './detect.ts';
import { CONTENT_HELP, CONTENT_OPTIONS, policyFrom } from './content.ts';
import { COMMON_HELP, parse, soul, storeDir } from './options.ts';
import { printable } from '../terminal.ts';
import { progressBar, readersBar } from './progress.ts';
import { checkSources, defaultSources, inFixtures } from './sources.ts';

const HELP = `usage: weave ingest [PATH...] [options]

Reads Claude Code transcripts into the store, one named graph per session. A PATH may be a
projects root, a project folder or one .jsonl file (default: $CLAUDE_CONFIG_DIR/projects,
else ~/.claude/projects). Sessions whose files have not changed since the last ingest are
skipped; a changed session replaces its graph whole.

options:
  --force            read every session again
  --no-detect        do not run the readers (weave detect) on what changed
  --json             print the report as JSON
${CONTENT_HELP}
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    ...CONTENT_OPTIONS,
    force: { type: 'boolean' },
    json: { type: 'boolean' },
    'no-detect': { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const paths = positionals.length ? positionals : (await defaultSources(false)).paths;
  await checkSources(paths);
  const bar = progressBar();
  const report = await ingest(paths, {
    storeDir: storeDir(values),
    soul: await soul(values),
    force: values.force,
    content: policyFrom(values),
    onProgress: bar.update,
    onProblem: (p) => {
      bar.done();
      process.stderr.write(
        `${printable(p.path)}:${p.lineNo}: ${p.kind}: ${printable(p.message)}${inFixtures(p.path) ? ' (broken on purpose in the fixtures)' : ''}\n`,
      );
    },
  });
  bar.done();
  if (report.searchIndex)
    process.stderr.write(
      `weave ingest: the search index was not updated (${report.searchIndex}); weave search reads the new sessions again\n`,
    );
  if (report.sessions + report.skipped === 0) {
    process.stderr.write(
      `weave ingest: no Claude Code transcripts (.jsonl files) under ${paths.join(', ')}; name a projects root (~/.claude/projects), a project folder or one .jsonl file\n`,
    );
    return 1;
  }
  // Readers rerun only where a session graph or a reader changed since they last ran.
  const readers = readersBar();
  const detected = values['no-detect']
    ? undefined
    : await detect({
        storeDir: storeDir(values),
        onlyStale: true,
        onProblem: (p) => {
          readers.done();
          printProblem(p);
        },
        onProgress: readers.update,
      });
  readers.done();
  process.stdout.write(
    values.json ? `${JSON.stringify(detected ? { ...report, detect: detected } : report, null, 2)}\n` : `${summary(report)}\n`,
  );
  if (detected && !values.json) process.stdout.write(`${detectSummary(detected)}\n`);
  return 0;
}

export function summary(r: IngestReport): string {
  const mb = r.bytes / 1e6;
  const secs = r.millis / 1000;
  const parts = [
    `${r.sessions} sessions read (${r.skipped} unchanged)`,
    `${r.files} files`,
    `${r.records.toLocaleString('en')} records`,
    `${r.quads.toLocaleString('en')} quads`,
    `${mb.toFixed(1)} MB in ${secs.toFixed(1)} s (${(mb / Math.max(secs, 0.001)).toFixed(1)} MB/s)`,
  ];
  if (r.malformed) parts.push(`${r.malformed} malformed lines`);
  if (r.pending) parts.push(`${r.pending} lines still being written`);
  return `ingested: ${parts.join(' · ')}`;
}
