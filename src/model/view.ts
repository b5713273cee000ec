import type oxigraph from 'oxigraph';
import { WEAVE_NS } from '../rdf/vocab.ts';
import { runQuery } from '../query/run.ts';
import type { JsonResults, JsonTerm } from '../query/table.ts';
import { EVIDENCE_LEVELS } from './evidence.ts';
import { MODEL_TERMS } from './vocabulary.ts';

/**
 * One session's conversation model as read back from the graph with SPARQL: what
 * `weave conversation` prints. Nothing here looks at the transcripts themselves.
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

export interface ConversationView {
  sessionId: string;
  streams: { main: number; child: number };
  nodes: number;
  relations: number;
  /** Counts by model term, in vocabulary order; zero counts left out. */
  kinds: [string, number][];
  relationCounts: [string, number][];
  evidence: [string, number][];
  unresolved: { kind: string; id: string }[];
  root: TreeNode;
}

type Store = oxigraph.Store;

const termOfIri = new Map<string, string>();
for (const t of MODEL_TERMS) termOfIri.set(WEAVE_NS + t.iris[0], t.term);
const KIND_TERMS = MODEL_TERMS.filter((t) => t.category === 'structure' || t.category === 'step');
const RELATION_TERMS = MODEL_TERMS.filter((t) => t.category === 'relation');
/** Where a node has two kinds, the narrower one names it. */
const NARROWER: Record<string, string> = { tool: 'agent.call', 'llm.call': 'message.synthetic' };

function select(store: Store, query: string): Record<string, JsonTerm>[] {
  const text = runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string;
  return (JSON.parse(text) as JsonResults).results?.bindings ?? [];
}

const value = (t: JsonTerm | undefined) => (t && t.type !== 'triple' ? t.value : undefined);
const local = (iri: string) => (iri.startsWith(WEAVE_NS) ? iri.slice(WEAVE_NS.length) : iri);

export function conversationView(store: Store, graph: string, sessionId: string): ConversationView {
  const g = `<${graph}>`;
  const kinds = countBy(store, `SELECT ?x (COUNT(DISTINCT ?n) AS ?k) WHERE { GRAPH ${g} { ?n a ?x FILTER NOT EXISTS { ?n a weave:Unresolved } }
      VALUES ?x { ${KIND_TERMS.map((t) => `weave:${t.iris[0]}`).join(' ')} } } GROUP BY ?x`);
  const relations = countBy(store, `SELECT ?x (COUNT(*) AS ?k) WHERE { GRAPH ${g} { ?s ?x ?o }
      VALUES ?x { ${RELATION_TERMS.map((t) => `weave:${t.iris[0]}`).join(' ')} } } GROUP BY ?x`);
  const evidence = countBy(store, `SELECT ?x (COUNT(*) AS ?k) WHERE { GRAPH ${g} { ?r weave:evidence ?x } } GROUP BY ?x`);
  const unresolved = select(store, `SELECT ?kind ?id WHERE { GRAPH ${g} { ?u a weave:Unresolved ; weave:unresolvedKind ?kind ; weave:missingId ?id } } ORDER BY ?kind ?id`)
    .map((b) => ({ kind: value(b.kind)!, id: value(b.id)! }));
  const nodes = Number(value(select(store, `SELECT (COUNT(DISTINCT ?n) AS ?k) WHERE { GRAPH ${g} { { ?n a weave:ModelNode } UNION { ?n a weave:Step } FILTER NOT EXISTS { ?n a weave:Unresolved } } }`)[0]?.k) ?? 0);
  const streamRoles = select(store, `SELECT ?role (COUNT(?s) AS ?k) WHERE { GRAPH ${g} { ?s a weave:Stream ; weave:streamRole ?role } } GROUP BY ?role`);
  const roleCount = (role: string) => Number(value(streamRoles.find((b) => value(b.role) === role)?.k) ?? 0);

  return {
    sessionId,
    streams: { main: roleCount('main'), child: roleCount('child') },
    nodes,
    relations: [...relations].filter(([iri]) => iri !== 'within').reduce((n, [, k]) => n + k, 0),
    kinds: KIND_TERMS.flatMap((t) => (kinds.get(t.iris[0]) ? [[t.term, kinds.get(t.iris[0])!] as [string, number]] : [])),
    relationCounts: RELATION_TERMS.flatMap((t) => (relations.get(t.iris[0]) ? [[t.term, relations.get(t.iris[0])!] as [string, number]] : [])),
    evidence: EVIDENCE_LEVELS.flatMap((e) => (evidence.get(e) ? [[e, evidence.get(e)!] as [string, number]] : [])),
    unresolved,
    root: tree(store, g, sessionId),
  };
}

function countBy(store: Store, query: string): Map<string, number> {
  return new Map(select(store, query).map((b) => [local(value(b.x)!), Number(value(b.k))]));
}

/** The containment tree: every node with its one `within` parent, kind, order and label. */
function tree(store: Store, g: string, sessionId: string): TreeNode {
  const nodes = new Map<string, TreeNode & { parent?: string }>();
  const rows = select(store, `SELECT ?n ?p ?c ?ev ?line ?src ?bad WHERE { GRAPH ${g} {
      ?n weave:within ?p ~ ?r {| weave:evidence ?ev |} .
      ?n a ?c .
      OPTIONAL { ?n weave:firstLine ?line } OPTIONAL { ?n weave:sourceLine ?src }
      OPTIONAL { ?n a weave:Unresolved BIND(true AS ?bad) } } }`);
  for (const b of rows) {
    const term = termOfIri.get(value(b.c)!);
    if (!term || !KIND_TERMS.some((t) => t.term === term)) continue;
    const iri = value(b.n)!;
    const found = nodes.get(iri);
    if (found) {
      if (NARROWER[found.kind] === term || found.kind === 'step') found.kind = term;
      continue;
    }
    nodes.set(iri, {
      iri, kind: term, label: '', order: Number(value(b.line) ?? value(b.src) ?? 0), evidence: value(b.ev)?.slice(WEAVE_NS.length),
      unresolved: !!b.bad, children: [], parent: value(b.p),
    });
  }
  for (const b of select(store, LABELS.replace('$G', g))) {
    const node = nodes.get(value(b.n)!);
    if (node) node.label = labelOf(b);
  }
  // A child stream names the call that started it: the flow across streams, in one line.
  for (const b of select(store, `SELECT ?s ?tool ?ev WHERE { GRAPH ${g} {
      ?c weave:starts ?s ~ ?r {| weave:evidence ?ev |} OPTIONAL { ?c weave:toolRequest/weave:toolName ?tool } } }`)) {
    const stream = nodes.get(value(b.s)!);
    if (stream) stream.label += `  ← ${value(b.tool) ?? 'an unresolved call'} (${local(value(b.ev)!)})`;
  }
  const root: TreeNode = { iri: '', kind: 'session', label: sessionId, order: 0, unresolved: false, children: [] };
  const session = value(select(store, `SELECT ?s WHERE { GRAPH ${g} { ?s a weave:Session } }`)[0]?.s);
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
    stream.children.forEach((epoch, i) => (epoch.label = `${i + 1}, from line ${epoch.order}`));
  return root;
}

/** The main stream first, otherwise line order; a child's output after the call that carried it. */
const rank = (n: TreeNode) => (n.kind === 'stream' && n.label !== 'main' ? 1 : 0);
const after = (n: TreeNode) => (n.kind === 'agent.output' ? 1 : 0);

const LABELS = `SELECT ?n ?name ?key ?trigger ?tev ?frags ?model ?tool ?text ?kind ?missing ?agent WHERE { GRAPH $G {
  { ?n weave:streamName ?name }
  UNION { ?n weave:runKey ?key OPTIONAL { ?n weave:trigger ?trigger ~ ?t {| weave:evidence ?tev |} } }
  UNION { ?n weave:fragmentCount ?frags OPTIONAL { ?n weave:lastFragment/weave:model ?model } }
  UNION { ?n weave:toolRequest/weave:toolName ?tool OPTIONAL { ?n weave:childAgentId ?agent } }
  UNION { ?n weave:labelledBy/weave:hasContentBlock ?b . ?b weave:blockOrder 0 ; weave:text ?text }
  UNION { ?n weave:unresolvedKind ?kind ; weave:missingId ?missing }
} }`;

function labelOf(b: Record<string, JsonTerm>): string {
  if (b.name) return value(b.name)!;
  if (b.key) return `${value(b.key)}${b.trigger ? `  ${local(value(b.trigger)!)}${inferred(b.tev)}` : ''}`;
  if (b.frags) return `${value(b.frags)} fragment${value(b.frags) === '1' ? '' : 's'}${b.model ? `  ${value(b.model)}` : ''}`;
  if (b.tool) return `${value(b.tool)}${b.agent ? ` → ${value(b.agent)}` : ''}`;
  if (b.text) return quote(value(b.text)!);
  if (b.kind) return `${value(b.kind)} ${value(b.missing)}`;
  return '';
}

/** How sure a value is, when it is less than an exact match. */
const inferred = (t: JsonTerm | undefined) => (t && value(t) !== `${WEAVE_NS}exact_unique` ? ` (${local(value(t)!)})` : '');

/** A talk's label: its first line of text, a slash command by its name. */
function quote(text: string, width = 60): string {
  const command = /<command-name>([^<]*)<\/command-name>(?:[\s\S]*<command-args>([^<]*)<\/command-args>)?/.exec(text);
  const line = (command ? `${command[1]} ${command[2] ?? ''}` : text).replace(/\s+/g, ' ').trim();
  return `"${line.length > width ? `${line.slice(0, width - 1)}…` : line}"`;
}
