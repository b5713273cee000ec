import { failureCode, failureText } from './failure.ts';
import { printable } from '../terminal.ts';
import { own } from '../own.ts';
import { printHelp } from './help.ts';

type Command = (args: string[]) => Promise<number | undefined>;

/** Subcommands load lazily so `weave query` does not pay for the server's imports. */
const COMMANDS: Record<string, [string, () => Promise<Command>]> = {
  ingest: ['read transcripts into the store', async () => (await import('./ingest.ts')).main],
  query: ['run SPARQL on the store', async () => (await import('./query.ts')).main],
  export: ['write the store as TriG, N-Quads, Turtle, N-Triples, JSON-LD or RDF/XML', async () => (await import('./export.ts')).main],
  serve: ['serve SPARQL over HTTP, with a query page, and keep the store current', async () => (await import('./serve.ts')).main],
  glossary: ['what Claude Code calls each term of the conversation model', async () => (await import('./glossary.ts')).main],
  search: ['full-text search over turns, tool inputs and results, ranked', async () => (await import('./search.ts')).main],
  usage: ['tokens and cost per day, week, month, session or 5-hour block', async () => (await import('./usage.ts')).main],
  mcp: ['a Model Context Protocol server on stdio: Claude Code asks its own history', async () => (await import('./mcp.ts')).main],
  conversation: ['one session as talks, runs, calls and tools, read from the graph', async () => (await import('./conversation.ts')).main],
  detect: ['run readers over the stored spine: annotations and claims', async () => (await import('./detect.ts')).main],
  verify: ['prove every source line and stored text is accounted for in the store', async () => (await import('./verify.ts')).main],
  validate: ['check the store against the SHACL shapes of ontology/shapes.ttl', async () => (await import('./validate.ts')).main],
  status: [
    'what the store holds and how current it is: sessions, sources, archive, pending lines',
    async () => (await import('./status.ts')).main,
  ],
};

function usage(): string {
  const rows = Object.entries(COMMANDS).map(([name, [what]]) => `  ${name.padEnd(14)}${what}`);
  return `usage: weave <command> [options]\n\ncommands:\n${rows.join('\n')}\n\n'weave <command> --help' tells more.\n`;
}

/** The one command a mistyped name most likely meant: two edits or fewer away, or the only one it begins; else undefined. */
export function nearest(name: string, commands: string[]): string | undefined {
  const typed = name.toLowerCase();
  const begun = commands.filter((c) => typed.length >= 2 && c.startsWith(typed));
  if (begun.length === 1) return begun[0];
  const scored = commands.map((c) => [c, edits(typed, c)] as const).filter(([, n]) => n <= Math.min(2, typed.length - 1));
  const best = Math.min(...scored.map(([, n]) => n));
  const at = scored.filter(([, n]) => n === best);
  return at.length === 1 ? at[0][0] : undefined;
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function edits(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length];
}

export async function run(argv: string[]): Promise<number> {
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    printHelp(usage());
    return name ? 0 : 2;
  }
  const entry = own(COMMANDS, name);
  if (!entry) {
    const near = nearest(name, Object.keys(COMMANDS));
    process.stderr.write(`weave: unknown command "${printable(name)}"${near ? `; did you mean "${near}"?` : ''}\n${usage()}`);
    return 2;
  }
  try {
    return (await (await entry[1]())(args)) ?? 0;
  } catch (e) {
    process.stderr.write(failureText(name, e, args));
    return failureCode(e);
  }
}

if (import.meta.url === `file://${process.argv[1]}` || process.argv[1]?.endsWith('/cli/main.ts')) {
  run(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
