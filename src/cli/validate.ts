import { print } from '../client/served.ts';
import { ValidateError, validateStore, type StoreValidation } from '../validate/store.ts';
import type { Violation } from '../validate/shapes.ts';
import { CliError, COMMON_HELP, parse, storeDir, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';

const HELP = `usage: weave validate [options]

Checks the store against the SHACL shapes of ontology/shapes.ttl: every class Weave emits, with
its required properties, datatypes and cardinalities, blocks ordered 0…n−1, tool results that
name a tool use, claims that are never asserted, placeholders never typed as data. Each session
is checked with its readers' graphs. Prints the violations grouped by shape (focus node, path,
message; never a literal's text) and exits 1 when there is any.

options:
  --session ID       check one session (its id or a unique prefix of one)
  --limit N          violations listed per shape (default 5; the counts are always whole)
  --json             print every violation as JSON
${COMMON_HELP}
`;

export async function main(args: string[]): Promise<number> {
  const { values } = parse(args, { session: { type: 'string' }, limit: { type: 'string' }, json: { type: 'boolean' } });
  if (values.help) {
    printHelp(HELP);
    return 0;
  }
  const limit = values.limit === undefined ? 5 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 0) throw new CliError('--limit must be a whole number', 2);
  let result: StoreValidation;
  try {
    const dir = storeDir(values);
    await sayEmitter(dir);
    result = await validateStore(dir, { session: values.session });
  } catch (e) {
    if (e instanceof ValidateError) throw new CliError(e.message);
    throw e;
  }
  await print(values.json ? { stdout: `${JSON.stringify(result, null, 1)}\n`, form: 'code' } : { stdout: render(result, limit) });
  return result.violations ? 1 : 0;
}

interface Group {
  shape: string;
  constraint: string;
  rows: { unit: string; violation: Violation }[];
}

/** Violations grouped by shape and constraint, biggest group first, then the totals. */
function render(result: StoreValidation, limit = 5): string {
  const groups = new Map<string, Group>();
  for (const unit of result.units) {
    for (const v of unit.violations) {
      const key = `${v.shape}\u0000${v.constraint}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { shape: v.shape, constraint: v.constraint, rows: [] }));
      group.rows.push({ unit: unit.sessionId ?? unit.name, violation: v });
    }
  }
  const out: string[] = [];
  for (const g of [...groups.values()].sort((a, b) => b.rows.length - a.rows.length || a.shape.localeCompare(b.shape))) {
    out.push(`${g.shape} (${g.constraint}): ${g.rows.length} violation${g.rows.length === 1 ? '' : 's'}`);
    for (const { unit, violation: v } of g.rows.slice(0, limit))
      out.push(`  ${v.focus}${v.value ? ` → ${v.value}` : ''}: ${v.message} [${unit}]`);
    if (g.rows.length > limit) out.push(`  … ${g.rows.length - limit} more`);
  }
  const units = result.units.length;
  const checked = `${result.graphs.toLocaleString('en')} graph${result.graphs === 1 ? '' : 's'} in ${units} unit${units === 1 ? '' : 's'} (${result.quads.toLocaleString('en')} quads)`;
  out.push(
    result.violations
      ? `NOT valid: ${result.violations.toLocaleString('en')} violation${result.violations === 1 ? '' : 's'} of ${groups.size} shape constraint${groups.size === 1 ? '' : 's'} in ${checked}`
      : `valid: ${checked} conform to ontology/shapes.ttl`,
  );
  return `${out.join('\n')}\n`;
}
