import oxigraph from 'oxigraph';
import YAML from 'yaml';
import { nativeName, type Glossary } from '../dialect/glossary.ts';
import { DIALECTS } from '../dialect/index.ts';
import { conversationDocument, conversationView, type ConversationView, type TreeNode } from '../model/view.ts';
import { readManifest, type GraphEntry } from '../store/manifest.ts';
import { runQuery } from '../query/run.ts';
import type { JsonResults } from '../query/table.ts';
import { loadGraph, loadOntology } from '../store/store.ts';
import { CliError, COMMON_HELP, parse, storeDir } from './options.ts';
import { printable } from '../terminal.ts';

const HELP = `usage: weave conversation ID [options]

Prints one session's conversation model from the store: its conversation and segments, how
many nodes of each kind, which relations and evidence levels, what stayed unresolved and why,
and the containment tree session → stream → epoch → talk → run → step. ID is a session id or a
unique prefix of one.

options:
  --terms T          model (default): the model's words (talk · run · llm.call · tool);
                     native: the runtime's (Claude Code: talk · promptId · message.id · tool_use + tool_result);
                     both: run  (promptId)
  --depth N          levels of the tree to print (default 7)
  --width N          children to print under each node before "… N more" (default 6)
  --format F         text (default), json or yaml: json and yaml print one document with the
                     header, counts, evidence levels, segments, unresolved list and the whole
                     tree, in the model's words (see docs/guide.md)
  --json             the same as --format json
${COMMON_HELP}
`;

type Terms = 'model' | 'native' | 'both';
type Format = 'text' | 'json' | 'yaml';

export async function main(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, {
    terms: { type: 'string' },
    depth: { type: 'string' },
    width: { type: 'string' },
    format: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (values.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError('give one session id (or a unique prefix of one)', 2);
  const terms = (values.terms ?? 'model') as Terms;
  if (!['model', 'native', 'both'].includes(terms)) throw new CliError(`--terms must be model, native or both, not "${values.terms}"`, 2);
  const format = (values.json ? 'json' : (values.format ?? 'text')) as Format;
  if (!['text', 'json', 'yaml'].includes(format)) throw new CliError(`--format must be text, json or yaml, not "${values.format}"`, 2);
  if (values.json && values.format !== undefined && values.format !== 'json')
    throw new CliError(`--json and --format ${values.format} disagree`, 2);
  const depth = count(values.depth, 7, '--depth');
  const width = count(values.width, 6, '--width');

  const dir = storeDir(values);
  const [graph, entry] = findSession(await readManifest(dir), positionals[0], dir);
  // Only this session's graph and the ontology: a store of thousands of sessions opens as fast as one.
  const store = new oxigraph.Store();
  await loadGraph(store, dir, entry);
  await loadOntology(store);
  const view = conversationView(store, graph, entry.sessionId!);
  const glossary = DIALECTS.find((d) => d.glossary.dialect === view.dialect)?.glossary;
  if (format === 'text')
    process.stdout.write(printable(render(view, namer(terms, glossary), depth, width, titleOf(store, graph)), { keepNewlines: true }));
  else {
    const document = conversationDocument(view);
    process.stdout.write(
      format === 'json'
        ? `${JSON.stringify(document, null, 2)}
`
        : YAML.stringify(document),
    );
  }
  return 0;
}

function count(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a positive whole number`, 2);
  return n;
}

export function findSession(manifest: Awaited<ReturnType<typeof readManifest>>, id: string, dir: string): [string, GraphEntry] {
  if (!manifest) throw new CliError(`no store in ${dir}: run weave ingest first`);
  const sessions = Object.entries(manifest.graphs).filter(([, e]) => e.sessionId !== undefined && !e.reader);
  const exact = sessions.filter(([, e]) => e.sessionId === id);
  const matches = exact.length ? exact : sessions.filter(([, e]) => e.sessionId!.startsWith(id));
  if (matches.length === 1) return matches[0];
  if (!matches.length) throw new CliError(`no session ${id} in ${dir}`);
  const shown = matches
    .slice(0, 5)
    .map(([, e]) => e.sessionId)
    .join(', ');
  throw new CliError(`"${id}" names ${matches.length} sessions (${shown}${matches.length > 5 ? ', …' : ''}); give more of the id`);
}

/** How a model term is printed: the model's word, the runtime's, or both. */
function namer(terms: Terms, glossary: Glossary | undefined): (term: string) => string {
  return (term) => {
    const native = nativeName(glossary, term);
    if (terms === 'native') return native;
    if (terms === 'both' && native !== term) return `${term}  (${native})`;
    return term;
  };
}

function render(view: ConversationView, name: (term: string) => string, depth: number, width: number, title?: string): string {
  const out: string[] = [];
  const { streams } = view;
  const { segments } = view;
  const open = segments.filter((s) => s.state === 'open').length;
  out.push(`conversation ${view.conversation.id}`);
  if (title) out.push(`  title      ${title}`);
  out.push(`  segments   ${segments.length} (${open} open, ${segments.length - open} candidate), policy ${segments[0]?.policy ?? '-'}`);
  out.push(`  streams    ${streams.main + streams.child} (${streams.main} main, ${streams.child} child)`);
  out.push(`  entities   ${view.nodes} nodes, ${view.relations} relations, ${view.unresolved.length} unresolved`);
  for (const id of view.conversation.continuesFrom) out.push(`  continues  from ${id}, a record of an earlier session`);
  const table = (title: string, rows: [string, number][], rename: (t: string) => string) => {
    if (!rows.length) return;
    const width = Math.max(40, ...rows.map(([term]) => rename(term).length + 2));
    out.push('', `${title}:`);
    for (const [term, n] of rows) out.push(`  ${rename(term).padEnd(width)} ${String(n).padStart(6)}`);
  };
  table('node kinds', view.kinds, name);
  table('relations', view.relationCounts, name);
  table('evidence', view.evidence, (t) => t);
  out.push('', 'segments:');
  for (const s of segments) {
    const when = s.from ? `${s.from} – ${s.until}` : 'no time stated';
    out.push(
      `  ${String(s.index).padStart(3)}  ${s.state.padEnd(9)}  from line ${String(s.firstLine).padEnd(6)} ${when}  ${s.talks} talk${s.talks === 1 ? '' : 's'}`,
    );
  }
  if (view.unresolved.length) {
    out.push('', `still unresolved (${view.unresolved.length}):`);
    for (const u of view.unresolved.slice(0, 12)) out.push(`  ${u.kind.padEnd(22)} ${u.id.padEnd(24)} ${u.reason}`);
    if (view.unresolved.length > 12) out.push(`  … and ${view.unresolved.length - 12} more`);
  }
  out.push('', 'structure (containment only; what flows across streams is a relation):');
  const walk = (node: TreeNode, level: number) => {
    const evidence = node.evidence && node.evidence !== 'exact_unique' ? `  [${node.evidence}]` : '';
    const label = node.label || (node.order ? `line ${node.order}` : '');
    out.push(`${'  '.repeat(level + 1)}${name(node.kind)}${node.unresolved ? ' (unresolved)' : ''}${label ? `  ${label}` : ''}${evidence}`);
    if (level + 1 >= depth) {
      if (node.children.length) out.push(`${'  '.repeat(level + 2)}… ${node.children.length} more`);
      return;
    }
    for (const child of node.children.slice(0, width)) walk(child, level + 1);
    if (node.children.length > width) out.push(`${'  '.repeat(level + 2)}… ${node.children.length - width} more`);
  };
  walk(view.root, 0);
  return `${out.join('\n')}\n`;
}

/** The session's title: weave:title of its main transcript. */
function titleOf(store: oxigraph.Store, graph: string): string | undefined {
  const query = `SELECT ?title WHERE { GRAPH <${graph}> { ?t weave:title ?title FILTER NOT EXISTS { ?t weave:parentTranscript ?p } } }`;
  const json = JSON.parse(runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string) as JsonResults;
  return json.results?.bindings[0]?.title?.value as string | undefined;
}
