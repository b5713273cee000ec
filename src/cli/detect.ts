import { print } from '../client/served.ts';
import { terminalWidth, wrapParts } from '../query/fit.ts';
import { detect, type DetectProblem, type DetectReport } from '../readers/detect.ts';
import { READERS, selectReaders } from '../readers/registry.ts';
import { CliError, COMMON_HELP, outputWidth, parse, requireStore, storeDir, WIDE_HELP, WIDE_OPTION, sayEmitter } from './options.ts';
import { printable } from '../terminal.ts';
import { printHelp } from './help.ts';
import { counted } from './counted.ts';

const HELP = `usage: weave detect [SESSION...] [options]

Runs readers over the stored spine and (re)writes their annotations and claims: one named graph
per session and reader, replaced whole. Without SESSION, every session in the store.

readers:
${READERS.map((r) => `  ${r.name.padEnd(19)}${r.description}`).join('\n')}

options:
  --detector NAME    run only this reader, or all readers of a detector (repeatable)
  --stale            skip readers whose graph is current for the session
  --json             print the report as JSON
${WIDE_HELP}
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    detector: { type: 'string', multiple: true },
    stale: { type: 'boolean' },
    json: { type: 'boolean' },
    ...WIDE_OPTION,
  });
  if (values.help) {
    printHelp(HELP);
    return 0;
  }
  const dir = storeDir(values);
  try {
    selectReaders(values.detector);
  } catch (e) {
    throw new CliError((e as Error).message, 2);
  }
  const manifest = await requireStore(dir);
  await sayEmitter(dir);
  if (typeof values.soul === 'string' && values.soul !== manifest.soul)
    throw new CliError(`the store in ${dir} was built for soul "${manifest.soul}", not "${values.soul}"`);
  let report: DetectReport;
  try {
    report = await detect({
      storeDir: dir,
      detectors: values.detector,
      sessions: positionals,
      onlyStale: values.stale,
      onProblem: printProblem,
      onNote: (text) => process.stderr.write(`weave detect: note: ${printable(text)}\n`),
    });
  } catch (e) {
    if (/^no session /.test((e as Error).message)) throw new CliError((e as Error).message);
    throw e;
  }
  await print(
    values.json
      ? { stdout: `${JSON.stringify(report, null, 2)}\n`, form: 'code' }
      : { stdout: `${summary(report, outputWidth(values))}\n` },
  );
  return report.problems.length ? 1 : 0;
}

/** One line on stderr per session or reader that failed; the others have run. */
export function printProblem(p: DetectProblem): void {
  process.stderr.write(`${printable(`${p.sessionId ? `session ${p.sessionId}, ` : ''}reader ${p.derivation}: ${p.message}`)}\n`);
}

export function summary(r: DetectReport, width = terminalWidth()): string {
  const found = Object.entries(r.findings)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  const parts = [
    `${counted(r.sessions, 'session')} read (${r.skipped} current)`,
    counted(r.graphs, 'graph'),
    `findings: ${found || 'none'}`,
  ];
  if (r.problems.length) parts.push(counted(r.problems.length, 'problem'));
  parts.push(`${(r.millis / 1000).toFixed(1)} s`);
  return wrapParts('detected:', parts, width);
}
