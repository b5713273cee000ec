import { print } from '../client/served.ts';
import type { Dialect } from '../dialect/dialect.ts';
import { glossaries, type Glossary } from '../dialect/glossary.ts';
import { DIALECTS } from '../dialect/index.ts';
import { fit, wrapWords, type Column } from '../query/fit.ts';
import { own } from '../own.ts';
import { CliError, outputWidth, parse, WIDE_HELP, WIDE_OPTION } from './options.ts';
import { fittedHelp } from './help.ts';

const help = (known: string[]) => `usage: weave glossary [DIALECT] [--json] [--wide]

Prints what the runtime calls each term of the conversation model, and where it writes it:
MODEL, RUNTIME, WHERE, NOTE, sorted by the model's term. A term the runtime has no word for is
derived by this project (RUNTIME —, WHERE "derived here"). Then what the runtime records that
the model does not carry, and what it does not supply at all. A table wider than the terminal
is printed as blocks, each term with its runtime name, where and note under it. Reads no store
and no transcript.

DIALECT defaults to ${known[0]}; known: ${known.join(', ')}.

options:
  --json             print the glossary as JSON
${WIDE_HELP}
  -h, --help         this help
`;

export async function main(args: string[]): Promise<number> {
  await print({ stdout: glossaryCommand(args), form: args.includes('--json') ? 'code' : 'text' });
  return 0;
}

/** What `weave glossary ARGS` prints, from the glossaries of `dialects` (the first is the default). */
export function glossaryCommand(args: string[], dialects: readonly Dialect[] = DIALECTS): string {
  const { values, positionals } = parse(args, { json: { type: 'boolean' }, ...WIDE_OPTION });
  const known = glossaries(dialects);
  const ids = Object.keys(known);
  if (values.help) return fittedHelp(help(ids));
  if (positionals.length > 1) throw new CliError('give at most one dialect', 2);
  const dialect = positionals[0] ?? ids[0];
  const glossary = own(known, dialect);
  if (!glossary) throw new CliError(`no glossary for dialect "${dialect}"; known: ${ids.join(', ')}`, 2);
  return values.json ? `${JSON.stringify(asJson(glossary, ids), null, 2)}\n` : renderGlossary(glossary, outputWidth(values));
}

function counts(glossary: Glossary): { terms: number; native: number; derived: number } {
  const native = glossary.terms.filter((t) => t.runtime !== undefined).length;
  return { terms: glossary.terms.length, native, derived: glossary.terms.length - native };
}

function sorted(glossary: Glossary) {
  return [...glossary.terms].sort((x, y) => (x.model < y.model ? -1 : x.model > y.model ? 1 : 0));
}

function asJson(glossary: Glossary, dialects: string[]) {
  return {
    dialect: glossary.dialect,
    dialects,
    counts: counts(glossary),
    terms: sorted(glossary).map((t) => ({
      model: t.model,
      runtime: t.runtime ?? null,
      where: t.where ?? null,
      note: t.note ?? null,
      derived: t.runtime === undefined,
      read: t.read,
    })),
    notCarried: glossary.notCarried,
    notSupplied: glossary.notSupplied,
  };
}

/**
 * Rows as space-aligned columns, two spaces apart, where they fit `width`; else each row as a
 * block, its first cell on a line of its own and the others under it, labelled and wrapped: a
 * glossary is read for its notes, which a table at 80 columns cut to a few words.
 */
function columns([head, ...rows]: string[][], width: number): string[] {
  const table = fit(
    head.map((h): Column => ({ head: h })),
    rows,
    width,
    { rule: false },
  );
  if (!table.cut) return table.lines;
  const labels = head.slice(1).map((h) => h.toLowerCase());
  const at = 4 + Math.max(...labels.map((l) => l.length)) + 2;
  return rows.flatMap(([first, ...rest], k) => [
    ...(k ? [''] : []),
    ...wrapWords(first, 0, '  ', width),
    ...rest.flatMap((value, i) => (value ? wrapWords(`    ${labels[i].padEnd(at - 4)}${value}`, at, ' '.repeat(at), width) : [])),
  ]);
}

export function renderGlossary(glossary: Glossary, width = Number.POSITIVE_INFINITY): string {
  const { terms, native, derived } = counts(glossary);
  const rows = sorted(glossary).map((t) => [
    t.model,
    t.runtime ?? '—',
    t.runtime === undefined ? 'derived here' : (t.where ?? ''),
    t.note ?? '',
  ]);
  return [
    `dialect ${glossary.dialect}`,
    '',
    ...columns([['MODEL', 'RUNTIME', 'WHERE', 'NOTE'], ...rows], width),
    '',
    `${terms} terms: ${native} named by ${glossary.label}, ${derived} derived`,
    '',
    `What ${glossary.label} records that the model does not carry:`,
    '',
    ...columns([['FIELD', 'WHY'], ...glossary.notCarried.map((r) => [r.field, r.why])], width),
    '',
    `What ${glossary.label} does not supply at all:`,
    '',
    ...columns([['WHAT', 'WHY'], ...glossary.notSupplied.map((r) => [r.what, r.why])], width),
    '',
  ].join('\n');
}
