import { CliError, COMMON_HELP, outputWidth, parse, storeDir, WIDE_HELP, WIDE_OPTION } from '../cli/options.ts';
import { nativeName, type Glossary } from '../dialect/glossary.ts';
import { DIALECTS } from '../dialect/index.ts';
import { withPlainName } from '../model/plain.ts';
import type { ConversationView, TreeNode } from '../model/view.ts';
import { sessionGraphIri } from '../rdf/iri.ts';
import { noStoreLine } from '../store/fixtures.ts';
import { noStore, readManifest, type GraphEntry } from '../store/manifest.ts';
import { printable } from '../terminal.ts';
import { utcSeconds, utcSpan } from '../time.ts';
import { cut, displayWidth, wrapWords } from '../query/fit.ts';
import { NO_DAEMON_HELP, noDaemon } from './daemon.ts';
import type { Printed, ServedCommand } from './served.ts';
import { externalStore } from './external.ts';
import { askServer, ServerError } from './server.ts';

/**
 * `weave conversation` without the store: its arguments, the session they name (read from the
 * manifest), its printout, and the session's view from a server (`/conversation/<id>`, the same
 * SELECTs and the same fold as cli/conversation.ts runs on the session's graph loaded here).
 */

export const CONVERSATION_HELP = `usage: weave conversation ID [options]

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
${WIDE_HELP}
${NO_DAEMON_HELP}
${COMMON_HELP}
`;

type Terms = 'model' | 'native' | 'both';
type Format = 'text' | 'json' | 'yaml';

export interface ConversationRequest {
  storeDir: string;
  /** The session as typed: an id or a unique prefix of one. */
  id: string;
  terms: Terms;
  format: Format;
  depth: number;
  width: number;
  /** `--wide`: lines unbroken, whatever the terminal's width. */
  wide: boolean;
  noDaemon: boolean;
}

export async function parseConversationArgs(args: string[]): Promise<ConversationRequest | undefined> {
  const { values, positionals } = parse(args, {
    terms: { type: 'string' },
    depth: { type: 'string' },
    width: { type: 'string' },
    format: { type: 'string' },
    json: { type: 'boolean' },
    'no-daemon': { type: 'boolean' },
    ...WIDE_OPTION,
  });
  if (values.help) return undefined;
  if (positionals.length !== 1) throw new CliError('give one session id (or a unique prefix of one)', 2);
  const terms = (values.terms ?? 'model') as Terms;
  if (!['model', 'native', 'both'].includes(terms)) throw new CliError(`--terms must be model, native or both, not "${values.terms}"`, 2);
  const format = (values.json ? 'json' : (values.format ?? 'text')) as Format;
  if (!['text', 'json', 'yaml'].includes(format)) throw new CliError(`--format must be text, json or yaml, not "${values.format}"`, 2);
  if (values.json && values.format !== undefined && values.format !== 'json')
    throw new CliError(`--json and --format ${values.format} disagree`, 2);
  return {
    storeDir: storeDir(values),
    id: positionals[0],
    terms,
    format,
    depth: count(values.depth, 7, '--depth'),
    width: count(values.width, 6, '--width'),
    wide: !!values.wide,
    noDaemon: noDaemon(values),
  };
}

/** The session's graph and manifest entry, named by an id or a unique prefix of one. */
export async function sessionOf(request: ConversationRequest): Promise<[string, GraphEntry]> {
  const manifest = await readManifest(request.storeDir);
  if (!manifest) throw new CliError(await noStoreLine(request.storeDir));
  return findSession(manifest, request.id, request.storeDir);
}

/** What `weave conversation` prints as text, from the view and the session's title. */
export function conversationText(request: ConversationRequest, view: ConversationView, title: string | undefined): string {
  const glossary = DIALECTS.find((d) => d.glossary.dialect === view.dialect)?.glossary;
  return printable(render(view, namer(request.terms, glossary), request.depth, request.width, title, outputWidth(request)), {
    keepNewlines: true,
  });
}

/** What `weave conversation --format json|yaml` prints of the session's document. */
export async function documentText(request: ConversationRequest, document: unknown): Promise<Printed> {
  if (request.format === 'json') return { stdout: `${JSON.stringify(document, null, 2)}\n`, form: 'code' };
  // Loaded when asked for: the light entry starts faster without it.
  const { default: YAML } = await import('yaml');
  // YAML's plain scalars take no escapes: written exactly into a pipe, shown escaped on a terminal.
  return { stdout: YAML.stringify(document), form: 'data' };
}

export const CONVERSATION: ServedCommand<ConversationRequest> = {
  name: 'conversation',
  parse: parseConversationArgs,
  storeDir: (request) => request.storeDir,
  answersHere: (request) => request.noDaemon,
  // It reads the session's own graphs alone.
  quickHere: true,
  async ask(server, request) {
    const manifest = await readManifest(request.storeDir);
    if (!manifest) throw new CliError(await noStoreLine(request.storeDir));
    let id = request.id;
    const known = knownSession(manifest, request);
    if (known) {
      const [graph, entry] = known;
      id = entry.sessionId!;
      // The server finds a session by its own graph: a store laid out otherwise is read here.
      if (graph !== sessionGraphIri(manifest!.soul, id)) return undefined;
    } else if (!(await externalStore(request.storeDir))) findSession(manifest, request.id, request.storeDir); // says why
    // An external store's server looks the session up in the whole store: another machine may have written it.
    const shown = request.format === 'text' ? `view&depth=${request.depth}&width=${request.width}` : 'json';
    const path = `conversation/${encodeURIComponent(id)}?format=${shown}`;
    let text: string;
    try {
      ({ text } = await askServer(server, path, { headers: { accept: 'application/json' } }));
    } catch (e) {
      // No such session there either (404), or several (300): the full CLI says so in its words. One
      // this directory names that the store does not hold (its graph dropped there) is read from
      // the graph file here, as without a server.
      if (e instanceof ServerError && [300, 404].includes(e.status)) return undefined;
      throw e;
    }
    if (request.format !== 'text') return documentText(request, JSON.parse(text));
    const { view, title } = JSON.parse(text) as { view: ConversationView; title?: string };
    return { stdout: conversationText(request, view, title) };
  },
};

/** The session the id names in this directory's manifest; undefined when it names none or several. */
function knownSession(manifest: NonNullable<Awaited<ReturnType<typeof readManifest>>>, request: ConversationRequest) {
  try {
    return findSession(manifest, request.id, request.storeDir);
  } catch {
    return undefined;
  }
}

function count(text: string | undefined, fallback: number, name: string): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new CliError(`${name} must be a positive whole number`, 2);
  return n;
}

export function findSession(manifest: Awaited<ReturnType<typeof readManifest>>, id: string, dir: string): [string, GraphEntry] {
  if (!manifest) throw new CliError(noStore(dir));
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

/** The least a name in the count tables keeps, however narrow the terminal. */
const MIN_NAME = 12;

/**
 * The view as text. Past `columns` a line is broken at spaces under its value's column (the
 * header, a segment's times, an unresolved node's reason), or cut with … in the tree, and in the
 * tables a name is cut before its count (--json has every word).
 */
export function render(
  view: ConversationView,
  name: (term: string) => string,
  depth: number,
  width: number,
  title?: string,
  columns = Number.POSITIVE_INFINITY,
): string {
  const out: string[] = [];
  /** Where each line may break (its value's column), by its index in `out`; a line not here is cut. */
  const breaks = new Map<number, number>();
  const breakable = (line: string, at: number) => {
    breaks.set(out.length, at);
    out.push(line);
  };
  const { streams } = view;
  const { segments } = view;
  const open = segments.filter((s) => s.state === 'open').length;
  out.push(`conversation ${view.conversation.id}`);
  if (title) breakable(`  title      ${title}`, 13);
  breakable(
    `  segments   ${segments.length} (${open} open, ${segments.length - open} candidate), policy ${segments[0]?.policy ?? '-'}`,
    13,
  );
  out.push(`  streams    ${streams.main + streams.child} (${streams.main} main, ${streams.child} child)`);
  out.push(`  entities   ${view.nodes} nodes, ${view.relations} relations, ${view.unresolved.length} unresolved`);
  for (const id of view.conversation.continuesFrom) breakable(`  continues  from ${id}, a record of an earlier session`, 13);
  breakable('  terms      plain names in brackets; weave glossary says what each term means', 13);
  const table = (title: string, rows: [string, number][], rename: (t: string) => string) => {
    if (!rows.length) return;
    // The counts stay whole at any width: a name too long for the line is cut, not its count
    // (the runtime's name of a notice, with --terms native, is 73 characters).
    const room = Math.max(MIN_NAME, columns - 2 - 1 - 6);
    const width = Math.min(room, Math.max(40, ...rows.map(([term]) => displayWidth(rename(term)) + 2)));
    out.push('', `${title}:`);
    for (const [term, n] of rows) {
      const label = cut(rename(term), width);
      out.push(`  ${label}${' '.repeat(width - displayWidth(label))} ${String(n).padStart(6)}`);
    }
  };
  // Each term with its plain name beside it (model/plain.ts, as the pages have them).
  table('node kinds', view.kinds, (t) => withPlainName(t, name(t)));
  table('relations', view.relationCounts, name);
  table('evidence', view.evidence, (t) => withPlainName(t));
  out.push('', 'segments:');
  for (const s of segments) {
    const when = s.from ? (s.until ? utcSpan(s.from, s.until) : `from ${utcSeconds(s.from)}`) : 'no time stated';
    breakable(
      `  ${String(s.index).padStart(3)}  ${s.state.padEnd(9)}  from line ${String(s.firstLine).padEnd(6)} ${when}  ${s.talks} talk${s.talks === 1 ? '' : 's'}`,
      35,
    );
  }
  if (view.unresolved.length) {
    out.push('', `still unresolved (${view.unresolved.length}):`);
    for (const u of view.unresolved.slice(0, 12)) breakable(`  ${u.kind.padEnd(22)} ${u.id.padEnd(24)} ${u.reason}`, 50);
    if (view.unresolved.length > 12) out.push(`  … and ${view.unresolved.length - 12} more`);
  }
  out.push('', 'structure (containment only; what flows across streams is a relation):');
  // The first node of each kind says its plain name too; after that the term alone.
  const named = new Set<string>();
  const walk = (node: TreeNode, level: number) => {
    const evidence = node.evidence && node.evidence !== 'exact_unique' ? `  [${node.evidence}]` : '';
    const label = node.label || (node.order ? `line ${node.order}` : '');
    const kind = named.has(node.kind) ? name(node.kind) : withPlainName(node.kind, name(node.kind));
    named.add(node.kind);
    out.push(`${'  '.repeat(level + 1)}${kind}${node.unresolved ? ' (unresolved)' : ''}${label ? `  ${label}` : ''}${evidence}`);
    if (level + 1 >= depth) {
      if (node.children.length) out.push(`${'  '.repeat(level + 2)}… ${node.children.length} more`);
      return;
    }
    for (const child of node.children.slice(0, width)) walk(child, level + 1);
    if (node.children.length > width) out.push(`${'  '.repeat(level + 2)}… ${node.children.length - width} more`);
  };
  walk(view.root, 0);
  const fitted = out.flatMap((line, i) => {
    if (displayWidth(line) <= columns) return [line];
    const at = breaks.get(i);
    return at === undefined ? [cut(line, columns)] : wrapWords(line, at, ' '.repeat(at), columns);
  });
  return `${fitted.join('\n')}\n`;
}
