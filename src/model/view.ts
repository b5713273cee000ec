import type oxigraph from 'oxigraph';
import { selectAll } from '../query/select-all.ts';
import { iriValues } from '../query/sparql-text.ts';
import { DIALECTS } from '../dialect/index.ts';
import { WEAVE_NS } from '../rdf/vocab.ts';
import { runQuery } from '../query/run.ts';
import type { JsonResults } from '../query/table.ts';
import { EVIDENCE_LEVELS } from './evidence.ts';
import { MODEL_TERMS } from './vocabulary.ts';

/**
 * One session's conversation model as read back from the graph with SPARQL: what
 * `weave conversation` prints and the server's /conversation page shows. The SELECTs
 * (`conversationQueries`) run wherever the store is, on a local copy or by the server's query
 * workers; one pure function (`conversationFromRows`) turns their rows into the view, so the
 * command and the page read the same model. Nothing here looks at the transcripts themselves.
 */

export interface TreeNode {
  iri: string;
  /** The model's term for the node's kind (`run`, `llm.call`, …). */
  kind: string;
  label: string;
  order: number;
  evidence?: string;
  unresolved: boolean;
  children: TreeNode[];
}

interface SegmentView {
  /** 1, 2, … in order. */
  index: number;
  iri: string;
  state: string;
  policy: string;
  firstLine: number;
  /** The times of its first and last main-stream records that state one. */
  from?: string;
  until?: string;
  talks: number;
}

interface UnresolvedView {
  kind: string;
  id: string;
  /** What the kind stands for: why this gap is in the session. */
  reason: string;
}

/** A call that started a stream: the flow across streams the tree leaves out. */
export interface StartView {
  call: string;
  stream: string;
  evidence: string;
  /** Whether the call has a place in the tree (a `within` parent): an unresolved call has none. */
  placed: boolean;
}

export interface ConversationView {
  sessionId: string;
  /** The dialect of the session's transcripts (`claude-code/1`), `unknown` if none is known. */
  dialect: string;
  conversation: { iri: string; id: string; continuesFrom: string[] };
  streams: { main: number; child: number };
  nodes: number;
  relations: number;
  /** Counts by model term, in vocabulary order; zero counts left out. */
  kinds: [string, number][];
  relationCounts: [string, number][];
  evidence: [string, number][];
  segments: SegmentView[];
  unresolved: UnresolvedView[];
  /** Which call started which stream; a stream may be claimed by two (a conflict). */
  starts: StartView[];
  root: TreeNode;
}

/** What each kind of Unresolved placeholder stands for. */
export const UNRESOLVED_REASONS: Record<string, string> = {
  run: "records no loop reaches: hooks, commands, notices outside any prompt's chain",
  tool_result: 'a tool use whose result the session never wrote',
  tool_use: 'a tool result answering a use the session does not hold',
  child_stream: 'a child announced (launch result, journal) whose file never landed',
  notified_child: 'a notification naming a child or task the session does not hold',
  spawn_call: 'a workflow batch whose launching call is not in the session',
  spawn_of_child: 'a child stream no call of the session started',
  epoch_continuation: 'a compaction whose pre-compaction tail is not in the session',
  summarized_boundary: 'a compaction summary whose boundary is not in the session',
  epoch_summary: 'a compaction summariser whose summary the session does not hold',
};

type Store = oxigraph.Store;

const termOfIri = new Map<string, string>();
for (const t of MODEL_TERMS) termOfIri.set(WEAVE_NS + t.iris[0], t.term);
const KIND_TERMS = MODEL_TERMS.filter((t) => t.category === 'structure' || t.category === 'step');
const RELATION_TERMS = MODEL_TERMS.filter((t) => t.category === 'relation');
/** Where a node has two kinds, the narrower one names it. */
const NARROWER: Record<string, string> = { tool: 'agent.call', 'llm.call': 'message.synthetic' };
/**
 * The classes the tree folds (its kinds, and a placeholder's class): a node's other classes
 * (weave:ModelNode, prov:Activity, …) gave the tree query nearly four rows per node. A FILTER, not
 * VALUES: Oxigraph starts from a VALUES, here every node of those classes (past 30 s for the
 * nodes within a page's talks, against 0.06 s).
 */
const TREE_CLASSES = [...KIND_TERMS.map((t) => `weave:${t.iris[0]}`), 'weave:Unresolved'].join(', ');

/** A solution as plain values: a variable left unbound is absent. */
export type Row = Record<string, string>;

/** The SELECTs the view is read from, by name. */
type ViewQueries = ReturnType<typeof conversationQueries>;
export type ViewRows = Record<keyof ViewQueries, Row[]>;

const local = (iri: string) => (iri.startsWith(WEAVE_NS) ? iri.slice(WEAVE_NS.length) : iri);

/**
 * The queries over one session's graph that the view is built from. A reifier's annotations are
 * written as the triples they stand for (`?r rdf:reifies <<( … )>> ; weave:evidence ?ev`): inside an
 * OPTIONAL, Oxigraph planned the `~ ?r {| … |}` form of the same pattern so that the labels of a
 * session of 89k lines took more than the server's 30 s, and 1.7 s written out. A placeholder is
 * left out of the counts by MINUS, not FILTER NOT EXISTS (the same counts): over the 100 MB bench
 * session the nodes took 0.8 s with FILTER NOT EXISTS, 0.2 s with MINUS.
 */
export function conversationQueries(graph: string, scope: TreeScope = 'all') {
  const g = `<${graph}>`;
  return {
    kinds: `SELECT ?x (COUNT(DISTINCT ?n) AS ?k) WHERE { GRAPH ${g} { ?n a ?x MINUS { ?n a weave:Unresolved } }
      VALUES ?x { ${KIND_TERMS.map((t) => `weave:${t.iris[0]}`).join(' ')} } } GROUP BY ?x`,
    relations: `SELECT ?x (COUNT(*) AS ?k) WHERE { GRAPH ${g} { ?s ?x ?o }
      VALUES ?x { ${RELATION_TERMS.map((t) => `weave:${t.iris[0]}`).join(' ')} } } GROUP BY ?x`,
    evidence: `SELECT ?x (COUNT(*) AS ?k) WHERE { GRAPH ${g} { ?r weave:evidence ?x } } GROUP BY ?x`,
    unresolved: `SELECT ?kind ?id WHERE { GRAPH ${g} { ?u a weave:Unresolved ; weave:unresolvedKind ?kind ; weave:missingId ?id } } ORDER BY ?kind ?id`,
    conversation: `SELECT ?c ?id WHERE { GRAPH ${g} { ?s a weave:Session ; weave:inConversation ?c . ?c dcterms:identifier ?id } }`,
    continuesFrom: `SELECT ?id WHERE { GRAPH ${g} { ?r weave:referenceProperty weave:continuesFrom ; weave:referenceTargetId ?id } } ORDER BY ?id`,
    segments: `SELECT ?s ?state ?policy ?line ?from ?until (COUNT(?t) AS ?talks) WHERE { GRAPH ${g} {
      ?s a weave:Segment ; weave:segmentState ?state ; weave:segmentPolicy ?policy ; weave:firstLine ?line
      OPTIONAL { ?s weave:activeFrom ?from } OPTIONAL { ?s weave:activeUntil ?until } OPTIONAL { ?t weave:inSegment ?s } } }
    GROUP BY ?s ?state ?policy ?line ?from ?until`,
    nodes: `SELECT (COUNT(DISTINCT ?n) AS ?k) WHERE { GRAPH ${g} { { ?n a weave:ModelNode } UNION { ?n a weave:Step } MINUS { ?n a weave:Unresolved } } }`,
    streams: `SELECT ?role (COUNT(?s) AS ?k) WHERE { GRAPH ${g} { ?s a weave:Stream ; weave:streamRole ?role } } GROUP BY ?role`,
    dialect: `SELECT DISTINCT ?class WHERE { GRAPH ${g} { ?t a ?class } VALUES ?class { ${DIALECTS.map((d) => d.transcriptClass).join(' ')} } }`,
    session: `SELECT ?s WHERE { GRAPH ${g} { ?s a weave:Session } }`,
    ...treeQueries(g, scope),
    starts: `SELECT ?c ?s ?tool ?ev ?place WHERE { GRAPH ${g} {
      ?c weave:starts ?s . ?r rdf:reifies <<( ?c weave:starts ?s )>> ; weave:evidence ?ev
      OPTIONAL { ?c weave:toolRequest/weave:toolName ?tool } OPTIONAL { ?c weave:within ?place } } }`,
    summarisers: `SELECT DISTINCT ?s WHERE { GRAPH ${g} { ?s a weave:Stream ; weave:produces ?summary } }`,
  };
}

/**
 * Which nodes the tree and its labels are read for: all of them, the top of the tree (the nodes
 * within the session, a stream or an epoch: streams, epochs, talks and an epoch's own steps), what
 * lies within some nodes, or some nodes by name. A long session's printout or page reads the top,
 * then what lies within the nodes it shows (readView).
 */
export type TreeScope = 'all' | 'top' | { within: readonly string[] } | { nodes: readonly string[] };

/** The kinds whose children the top of the tree holds whole. */
export const TOP_KINDS: ReadonlySet<string> = new Set(['session', 'stream', 'epoch']);

function scopeOf(scope: TreeScope): string {
  if (scope === 'all') return '';
  if (scope === 'top') return '?n weave:within ?top . ?top a ?topClass FILTER(?topClass IN (weave:Session, weave:Stream, weave:Epoch))';
  if ('nodes' in scope) return iriValues('?n', scope.nodes);
  return `${iriValues('?top', scope.within)} ?n weave:within+ ?top .`;
}

/** The tree's rows and their labels, for the nodes `scope` names. */
function treeQueries(g: string, scope: TreeScope) {
  const within = scopeOf(scope);
  return {
    tree: `SELECT ?n ?p ?c ?ev ?line ?src ?bad WHERE { GRAPH ${g} {
      ${within ? `${within}\n      ` : ''}?n weave:within ?p .
      ?r rdf:reifies <<( ?n weave:within ?p )>> ; weave:evidence ?ev .
      ?n a ?c FILTER(?c IN (${TREE_CLASSES}))
      OPTIONAL { ?n weave:firstLine ?line } OPTIONAL { ?n weave:sourceLine ?src }
      OPTIONAL { ?n weave:unresolvedKind ?bad } } }`,
    // The top's labels are its streams' names: a talk's is read once it is shown (the labels of the
    // 100 MB bench session's 14,877 talks took 1.75 s, for a printout or a page that shows a few).
    labels:
      scope === 'top'
        ? `SELECT ?n ?name WHERE { GRAPH ${g} { ?n weave:streamName ?name } }`
        : LABELS.replace('$G', g).replace('$SCOPE', within ? `${within}\n  ` : ''),
  };
}

/**
 * A session's view, its queries answered by `select`. Without `shown`, the whole tree at once
 * (what --json prints). With it, only what a printout or a page shows is read: the top of the
 * tree, then, round by round, what lies within the nodes `shown` names of the view so far, until
 * it names none not read. What is shown is then as the whole tree would show it: each node it
 * names is read with everything within it, and the top holds every child of what it holds.
 */
export async function readView(
  graph: string,
  sessionId: string,
  select: (query: string) => Row[] | Promise<Row[]>,
  shown?: (view: ConversationView) => string[],
): Promise<ConversationView> {
  const rows: ViewRows = await selectAll(conversationQueries(graph, shown ? 'top' : 'all'), select);
  const read = new Set<string>();
  for (;;) {
    const view = conversationFromRows(rows, sessionId);
    const more = shown?.(view).filter((iri) => !read.has(iri)) ?? [];
    if (!more.length) return view;
    for (const iri of more) read.add(iri);
    // The labels of the nodes shown and of those found within them, by name: Virtuoso bound none
    // after the path (and refused it in a subquery).
    const g = `<${graph}>`;
    const tree = await select(treeQueries(g, { within: more }).tree);
    rows.tree.push(...tree);
    const unlabelled = [...new Set([...more, ...tree.map((b) => b.n)])];
    rows.labels.push(...(await select(treeQueries(g, { nodes: unlabelled }).labels)));
  }
}

/**
 * What a printout to `depth` levels, `width` children a node (as `weave conversation` prints it),
 * shows that may hold more than the top of the tree: the nodes it shows of a kind the top does not
 * hold whole.
 */
export function shownInPrint(depth: number, width: number): (view: ConversationView) => string[] {
  return (view) => {
    const found: string[] = [];
    const walk = (node: TreeNode, level: number) => {
      if (!TOP_KINDS.has(node.kind)) return void found.push(node.iri);
      if (level + 1 >= depth) return;
      for (const child of node.children.slice(0, width)) walk(child, level + 1);
    };
    walk(view.root, 0);
    return found;
  };
}

/** The view from the rows of `conversationQueries`, however they were run. */
export function conversationFromRows(rows: ViewRows, sessionId: string): ConversationView {
  const kinds = countBy(rows.kinds);
  const relations = countBy(rows.relations);
  const evidence = countBy(rows.evidence);
  const unresolved = rows.unresolved.map((b) => ({ kind: b.kind, id: b.id, reason: UNRESOLVED_REASONS[b.kind] ?? '' }));
  const conversation = rows.conversation[0];
  const segments = rows.segments
    .map((b) => ({
      iri: b.s,
      state: b.state,
      policy: b.policy,
      firstLine: Number(b.line),
      from: b.from,
      until: b.until,
      talks: Number(b.talks),
    }))
    .sort((x, y) => segmentIndex(x.iri) - segmentIndex(y.iri))
    .map((s, i) => ({ index: i + 1, ...s }));
  const roleCount = (role: string) => Number(rows.streams.find((b) => b.role === role)?.k ?? 0);
  const classes = new Set(rows.dialect.map((b) => `<${b.class}>`));

  return {
    sessionId,
    dialect: DIALECTS.find((d) => classes.has(d.transcriptClass))?.glossary.dialect ?? 'unknown',
    conversation: { iri: conversation?.c ?? '', id: conversation?.id ?? sessionId, continuesFrom: rows.continuesFrom.map((b) => b.id) },
    segments,
    streams: { main: roleCount('main'), child: roleCount('child') },
    nodes: Number(rows.nodes[0]?.k ?? 0),
    relations: [...relations].filter(([iri]) => iri !== 'within').reduce((n, [, k]) => n + k, 0),
    kinds: KIND_TERMS.flatMap((t) => (kinds.get(t.iris[0]) ? [[t.term, kinds.get(t.iris[0])!] as [string, number]] : [])),
    relationCounts: RELATION_TERMS.flatMap((t) =>
      relations.get(t.iris[0]) ? [[t.term, relations.get(t.iris[0])!] as [string, number]] : [],
    ),
    evidence: EVIDENCE_LEVELS.flatMap((e) => (evidence.get(e) ? [[e, evidence.get(e)!] as [string, number]] : [])),
    unresolved,
    starts: rows.starts.map((b) => ({ call: b.c, stream: b.s, evidence: local(b.ev), placed: b.place !== undefined })),
    root: tree(rows, sessionId),
  };
}

/** The view of one session from a store holding its graph: every query run here, synchronously. */
export function conversationView(store: Store, graph: string, sessionId: string): ConversationView {
  const queries = conversationQueries(graph);
  const rows = Object.fromEntries(Object.entries(queries).map(([name, query]) => [name, storeRows(store, query)])) as ViewRows;
  return conversationFromRows(rows, sessionId);
}

/** A SELECT's solutions from a store here, as rows of plain values. */
export function storeRows(store: Store, query: string): Row[] {
  const text = runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string;
  return ((JSON.parse(text) as JsonResults).results?.bindings ?? []).map((b) =>
    Object.fromEntries(Object.entries(b).flatMap(([k, t]) => (t.type === 'triple' ? [] : [[k, t.value]]))),
  );
}

/** A segment's place, from its IRI (`…/Segment/<session>/<n>`): their order is their number. */
const segmentIndex = (iri: string) => Number(iri.slice(iri.lastIndexOf('/') + 1));

function countBy(rows: Row[]): Map<string, number> {
  return new Map(rows.map((b) => [local(b.x), Number(b.k)]));
}

/** The containment tree: every node with its one `within` parent, kind, order and label. */
function tree(rows: ViewRows, sessionId: string): TreeNode {
  const nodes = new Map<string, TreeNode & { parent?: string }>();
  for (const b of rows.tree) {
    // A placeholder is typed Unresolved and nothing else: its kind says what it stands in for.
    const term = b.bad !== undefined ? b.bad : termOfIri.get(b.c);
    if (!term || !KIND_TERMS.some((t) => t.term === term)) continue;
    const iri = b.n;
    const found = nodes.get(iri);
    if (found) {
      if (NARROWER[found.kind] === term || found.kind === 'step') found.kind = term;
      continue;
    }
    nodes.set(iri, {
      iri,
      kind: term,
      label: '',
      order: Number(b.line ?? b.src ?? 0),
      evidence: b.ev?.slice(WEAVE_NS.length),
      unresolved: b.bad !== undefined,
      children: [],
      parent: b.p,
    });
  }
  for (const b of rows.labels) {
    const node = nodes.get(b.n);
    if (node) node.label = labelOf(b);
  }
  // A child stream names the call that started it: the flow across streams, in one line.
  for (const b of rows.starts) {
    const stream = nodes.get(b.s);
    if (stream) stream.label += `  ← ${b.tool ?? 'an unresolved call'} (${local(b.ev)})`;
  }
  // A compaction summariser's stream: no call started it, it produced a compaction's summary. Its
  // opening message is the runtime asking for that summary, not a prompt anyone typed.
  for (const b of rows.summarisers) {
    const stream = nodes.get(b.s);
    if (!stream) continue;
    stream.label += SUMMARISER;
    for (const node of nodes.values())
      if (node.kind === 'talk' && nodes.get(nodes.get(node.parent!)?.parent ?? '') === stream)
        node.label = `${COMPACTION_REQUEST} ${node.label}`;
  }
  const session = rows.session[0]?.s;
  const root: TreeNode = { iri: session ?? '', kind: 'session', label: sessionId, order: 0, unresolved: false, children: [] };
  for (const node of nodes.values()) {
    const parent = node.parent === session ? root : nodes.get(node.parent!);
    parent?.children.push(node);
  }
  const sort = (n: TreeNode) => {
    n.children.sort((x, y) => rank(x) - rank(y) || x.order - y.order || after(x) - after(y) || x.label.localeCompare(y.label));
    n.children.forEach(sort);
  };
  sort(root);
  for (const stream of root.children)
    for (const [i, epoch] of stream.children.entries()) epoch.label = `${i + 1}, from line ${epoch.order}`;
  return root;
}

/** What a compaction summariser's stream label ends with (in place of the call that started a child). */
const SUMMARISER = '  ← compaction';
/** What a talk of a summariser begins with: the runtime's request for the summary. */
const COMPACTION_REQUEST = 'compaction request';

/** Whether a stream of the tree is a compaction summariser's. */
export const isSummariser = (stream: { kind: string; label: string }) => stream.kind === 'stream' && stream.label.endsWith(SUMMARISER);
/** Whether a talk of the tree is a summariser's, opened by the runtime's request for a compaction's summary. */
export const isCompactionRequest = (talk: { kind: string; label: string }) =>
  talk.kind === 'talk' && talk.label.startsWith(`${COMPACTION_REQUEST} `);

/** The main stream first, otherwise line order; a child's output after the call that carried it. */
const rank = (n: TreeNode) => (n.kind === 'stream' && n.label !== 'main' ? 1 : 0);
const after = (n: TreeNode) => (n.kind === 'agent.output' ? 1 : 0);

/**
 * A node's label, from what it has: a stream's name; a run's key, trigger and rule; a call's
 * fragments and model; a tool's name; a talk's first text; a placeholder's kind. A first block is
 * found by `FILTER(?order = 0)`, not by the constant: given it, Oxigraph started from every first
 * block of the session (the labels of 26 nodes of the 100 MB bench session: 1.29 s against 0.62 s).
 */
const LABELS = `SELECT ?n ?name ?key ?trigger ?tev ?rule ?frags ?model ?tool ?text ?kind ?missing ?agent WHERE { GRAPH $G {
  $SCOPE{ ?n weave:streamName ?name }
  UNION { ?n weave:runKey ?key
    OPTIONAL { ?n weave:trigger ?trigger . ?t rdf:reifies <<( ?n weave:trigger ?trigger )>> ; weave:evidence ?tev }
    OPTIONAL { ?n weave:runRule ?rule } }
  UNION { ?n weave:fragmentCount ?frags OPTIONAL { ?n weave:lastFragment/weave:model ?model } }
  UNION { ?n weave:toolRequest/weave:toolName ?tool OPTIONAL { ?n weave:childAgentId ?agent } }
  UNION { ?n weave:labelledBy/weave:hasContentBlock ?b . ?b weave:blockOrder ?order ; weave:text ?text FILTER(?order = 0) }
  UNION { ?n weave:unresolvedKind ?kind ; weave:missingId ?missing }
} }`;

function labelOf(b: Row): string {
  if (b.name !== undefined) return b.name;
  if (b.key !== undefined)
    return `${b.key}${b.trigger ? `  ${local(b.trigger)}${inferred(b.tev)}` : ''}${b.rule && !STATED_RULES.has(local(b.rule)) ? `  rule ${local(b.rule)}` : ''}`;
  if (b.frags !== undefined) return `${b.frags} fragment${b.frags === '1' ? '' : 's'}${b.model ? `  ${b.model}` : ''}`;
  if (b.tool !== undefined) return `${b.tool}${b.agent ? ` → ${b.agent}` : ''}`;
  if (b.text !== undefined) return quote(b.text);
  if (b.kind !== undefined) return `${b.kind} ${b.missing}`;
  return '';
}

/** The rules every reader of a transcript expects; a run found another way names its rule. */
const STATED_RULES = new Set(['byPromptId', 'byOpeningRecord']);

/** How sure a value is, when it is less than an exact match. */
const inferred = (t: string | undefined) => (t && t !== `${WEAVE_NS}exact_unique` ? ` (${local(t)})` : '');

/** A talk's label: its first line of text, a slash command by its name. */
function quote(text: string, width = 60): string {
  const command = /<command-name>([^<]*)<\/command-name>(?:[\s\S]*<command-args>([^<]*)<\/command-args>)?/.exec(text);
  const line = (command ? `${command[1]} ${command[2] ?? ''}` : text).replace(/\s+/g, ' ').trim();
  return `"${line.length > width ? `${line.slice(0, width - 1)}…` : line}"`;
}

/** A node of the document's tree: what `weave conversation --json` prints for each node. */
export interface TreeDocument {
  kind: string;
  label: string;
  iri: string;
  /** The line of its stream's file where it begins (0 when it has none). */
  line: number;
  /** The evidence of its link to its parent; absent on the root. */
  evidence?: string;
  unresolved: boolean;
  children: TreeDocument[];
}

/**
 * The view as one document, for tools that read a conversation without SPARQL (`weave
 * conversation --json`, `--format yaml`), after asz's asz.view: a header, the counts, the
 * evidence levels, the segments, what stayed unresolved, and the whole containment tree. Every
 * key is always present; docs/guide.md describes each.
 */
export function conversationDocument(view: ConversationView, dialect = view.dialect) {
  const object = (rows: [string, number][]) => Object.fromEntries(rows);
  const node = (n: TreeNode): TreeDocument => ({
    kind: n.kind,
    label: n.label,
    iri: n.iri,
    line: n.order,
    ...(n.evidence ? { evidence: n.evidence } : {}),
    unresolved: n.unresolved,
    children: n.children.map(node),
  });
  return {
    view: 'weave.conversation/1',
    header: {
      conversation: view.conversation.id,
      session: view.sessionId,
      dialect,
      continuesFrom: view.conversation.continuesFrom,
      streams: { main: view.streams.main, child: view.streams.child },
      entities: { nodes: view.nodes, relations: view.relations, unresolved: view.unresolved.length },
    },
    counts: { kinds: object(view.kinds), relations: object(view.relationCounts) },
    evidence: object(view.evidence),
    segments: view.segments.map(({ index, state, policy, firstLine, from, until, talks, iri }) => ({
      segment: index,
      state,
      policy,
      firstLine,
      from: from ?? null,
      until: until ?? null,
      talks,
      iri,
    })),
    unresolved: view.unresolved,
    tree: node(view.root),
  };
}

/** What `weave conversation --json` prints. */
export type ConversationDocument = ReturnType<typeof conversationDocument>;
