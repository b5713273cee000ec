import { GLOSSARIES, type Glossary } from '../dialect/claude-code/glossary.ts';
import { DIALECT } from '../dialect/claude-code/read.ts';
import { fitTable, terminalWidth, type Column } from '../query/fit.ts';
import { CliError, parse } from './options.ts';

const HELP = `usage: weave glossary [DIALECT] [--json] [--wide]

Prints what the runtime calls each term of the conversation model, and where it writes it:
MODEL, RUNTIME, WHERE, NOTE, sorted by the model's term. A term the runtime has no word for is
derived by this project (RUNTIME —, WHERE "derived here"). Then what the runtime records that
the model does not carry, and what it does not supply at all. Reads no store and no transcript.

DIALECT defaults to ${DIALECT}; known: ${Object.keys(GLOSSARIES).join(', ')}.

options:
  --json             print the glossary as JSON
  --wide             print every column in full, whatever the terminal's width
  -h, --help         this help
`;

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, wide: { type: 'boolean' } });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 1) throw new CliError('give at most one dialect', 2);
  const dialect = positionals[0] ?? DIALECT;
  const glossary = GLOSSARIES[dialect];
  if (!glossary) throw new CliError(`no glossary for dialect "${dialect}"; known: ${Object.keys(GLOSSARIES).join(', ')}`, 2);
  process.stdout.write(values.json ? `${JSON.stringify(asJson(glossary), null, 2)}\n` : renderGlossary(glossary, values.wide ? Number.POSITIVE_INFINITY : terminalWidth()));
  return 0;
}

export function counts(glossary: Glossary): { terms: number; native: number; derived: number } {
  const native = glossary.terms.filter((t) => t.runtime !== undefined).length;
  return { terms: glossary.terms.length, native, derived: glossary.terms.length - native };
}

function sorted(glossary: Glossary) {
  return [...glossary.terms].sort((x, y) => (x.model < y.model ? -1 : x.model > y.model ? 1 : 0));
}

export function asJson(glossary: Glossary) {
  return {
    dialect: glossary.dialect,
    dialects: Object.keys(GLOSSARIES),
    counts: counts(glossary),
    terms: sorted(glossary).map((t) => ({ model: t.model, runtime: t.runtime ?? null, where: t.where ?? null, note: t.note ?? null, derived: t.runtime === undefined, read: t.read })),
    notCarried: glossary.notCarried,
    notSupplied: glossary.notSupplied,
  };
}

/** Rows as space-aligned columns, two spaces apart, the text columns cut to fit `width`. */
function columns([head, ...rows]: string[][], width: number): string[] {
  const cols: Column[] = head.map((h, i) => ({ head: h, shrink: i > 0 }));
  return fitTable(cols, rows, width, { rule: false });
}

export function renderGlossary(glossary: Glossary, width = Number.POSITIVE_INFINITY): string {
  const { terms, native, derived } = counts(glossary);
  const rows = sorted(glossary).map((t) => [t.model, t.runtime ?? '—', t.runtime === undefined ? 'derived here' : (t.where ?? ''), t.note ?? '']);
  return [
    `dialect ${glossary.dialect}`,
    '',
    ...columns([['MODEL', 'RUNTIME', 'WHERE', 'NOTE'], ...rows], width),
    '',
    `${terms} terms: ${native} named by Claude Code, ${derived} derived`,
    '',
    'What Claude Code records that the model does not carry:',
    '',
    ...columns([['FIELD', 'WHY'], ...glossary.notCarried.map((r) => [r.field, r.why])], width),
    '',
    'What Claude Code does not supply at all:',
    '',
    ...columns([['WHAT', 'WHY'], ...glossary.notSupplied.map((r) => [r.what, r.why])], width),
    '',
  ].join('\n');
}
