import type { Row } from '../../model/view.ts';
import { iriValues } from '../../query/sparql-text.ts';
import { selectAll } from '../../query/select-all.ts';

/**
 * What the conversation page shows beside the model's tree (`conversationQueries`): the times,
 * tokens and models of calls, tool inputs and results, the texts of talks and steps, and what a
 * compaction says of itself. Each is a SELECT over the session's graph, run by the query workers;
 * the rows are keyed by the IRI of the tree node they describe. Long texts are cut in the query
 * (the page links to the full text), so a session with large tool outputs stays a page. A first
 * block is found by `FILTER(?order = 0)`, not by the constant in the pattern: given the constant,
 * Oxigraph starts from every block at order 0 and joins back (0.9 to 2 s on the corpus's largest
 * session, against 11 ms).
 */

/** Characters of a text, a tool input or a tool result the page carries. */
const CLIP = 4000;

/** A text as the page carries it: at most CLIP characters, and how long the whole is. */
export interface Clipped {
  text: string;
  length: number;
}

interface CallDetails {
  start?: string;
  end?: string;
  model?: string;
  tokens: { input: number; output: number; cacheCreation: number; cacheRead: number };
}

interface ResultPart {
  /** The response block this part belongs to (a tool may have two: an ambiguous join). */
  response: string;
  order: number;
  /** The block's kind where it holds no text (an image). */
  kind?: string;
  text?: Clipped;
}

export interface ToolDetails {
  name: string;
  input?: Clipped;
  error?: boolean;
  status?: string;
  durationMs?: number;
  interrupted?: boolean;
  results: ResultPart[];
}

export interface NodeDetails {
  time?: string;
  text?: Clipped;
  /** A talk's prompt: the step it is labelled by (shown once, as the talk's text). */
  labelledBy?: string;
  call?: CallDetails;
  tool?: ToolDetails;
  compaction?: { trigger?: string; preTokens?: number };
}

/** An unbound text leaves both unbound: a BIND that fails binds nothing and keeps the row. */
const clipped = (text: string) => `BIND(SUBSTR(STR(${text}), 1, ${CLIP}) AS ${text}Clip) BIND(STRLEN(STR(${text})) AS ${text}Length)`;

/** The details of every node, or of `nodes` alone: a long session's page reads those it shows. */
export function conversationDetailsQueries(graph: string, nodes?: readonly string[]) {
  const g = `<${graph}>`;
  const scope = nodes ? `${iriValues('?n', nodes)}\n  ` : '';
  return {
    calls: `SELECT ?n ?start ?end ?model ?in ?out ?cw ?cr WHERE { GRAPH ${g} {
  ${scope}?n a weave:LlmCall ; weave:lastFragment ?last .
  OPTIONAL { ?n weave:firstFragment/weave:timestamp ?start }
  OPTIONAL { ?last weave:timestamp ?end }
  OPTIONAL { ?last weave:model ?model }
  OPTIONAL { ?last weave:hasUsage ?u .
    OPTIONAL { ?u weave:inputTokens ?in } OPTIONAL { ?u weave:outputTokens ?out }
    OPTIONAL { ?u weave:cacheCreationInputTokens ?cw } OPTIONAL { ?u weave:cacheReadInputTokens ?cr } }
} }`,
    tools: `SELECT ?n ?name ?inputClip ?inputLength ?error ?status ?ms ?interrupted WHERE { GRAPH ${g} {
  ${scope}?n weave:toolRequest ?request . ?request weave:toolName ?name .
  OPTIONAL { ?request weave:toolInput ?input ${clipped('?input')} }
  OPTIONAL { ?n weave:resultIsError ?error } OPTIONAL { ?n weave:toolStatus ?status }
  OPTIONAL { ?n weave:runtimeDurationMs ?ms } OPTIONAL { ?n weave:interrupted ?interrupted }
} }`,
    results: `SELECT ?n ?response ?order ?kind ?textClip ?textLength WHERE { GRAPH ${g} {
  ${scope}?n weave:toolResponse ?response .
  { ?response weave:text ?text BIND(-1 AS ?order) }
  UNION { ?response weave:hasContentBlock ?block . ?block weave:blockOrder ?order
    OPTIONAL { ?block weave:text ?text } OPTIONAL { ?block a ?kind FILTER(?kind != weave:ContentBlock) } }
  ${clipped('?text')}
} }`,
    texts: `SELECT ?n ?time ?label ?textClip ?textLength WHERE { GRAPH ${g} {
  ${scope}?n weave:within ?parent .
  OPTIONAL { ?n weave:timestamp ?ownTime }
  OPTIONAL { ?turn weave:hasContentBlock ?n ; weave:timestamp ?turnTime }
  OPTIONAL { ?n weave:labelledBy ?label OPTIONAL { ?label weave:timestamp ?labelTime }
    OPTIONAL { ?label weave:hasContentBlock ?labelBlock . ?labelBlock weave:blockOrder ?labelOrder ; weave:text ?labelText FILTER(?labelOrder = 0) } }
  OPTIONAL { ?n weave:text ?ownText }
  OPTIONAL { ?n weave:hasContentBlock ?first . ?first weave:blockOrder ?firstOrder ; weave:text ?firstText FILTER(?firstOrder = 0) }
  BIND(COALESCE(?ownTime, ?turnTime, ?labelTime) AS ?time)
  BIND(COALESCE(?ownText, ?firstText, ?labelText) AS ?text)
  FILTER(BOUND(?time) || BOUND(?text))
  ${clipped('?text')}
} }`,
    compactions: `SELECT ?n ?trigger ?pre WHERE { GRAPH ${g} {
  ${scope}?c a weave:Compaction ; prov:generated ?n .
  OPTIONAL { ?c weave:compactionTrigger ?trigger } OPTIONAL { ?c weave:preTokens ?pre }
} }`,
  };
}

type DetailsRows = Record<keyof ReturnType<typeof conversationDetailsQueries>, Row[]>;

/**
 * Nodes whose details one asking reads at most. Over the bench's 100 MB session Oxigraph answered
 * the calls query for 8,000 nodes in 0.4 s and for 16,000 not in 60 s (it then starts from every
 * call); a page of 100 talks holds about 900, but a sub-agent stream under one call can hold thousands.
 */
export const NODES_PER_QUERY = 2000;

/** The details of every node, or of `nodes` alone, asked NODES_PER_QUERY nodes at a time (`perQuery`). */
export async function readDetails(
  graph: string,
  nodes: readonly string[] | undefined,
  select: (query: string) => Promise<Row[]>,
  perQuery = NODES_PER_QUERY,
): Promise<DetailsRows> {
  if (!nodes) return selectAll(conversationDetailsQueries(graph), select);
  const rows: DetailsRows = { calls: [], tools: [], results: [], texts: [], compactions: [] };
  for (let i = 0; i < nodes.length; i += perQuery) {
    const part = await selectAll(conversationDetailsQueries(graph, nodes.slice(i, i + perQuery)), select);
    for (const name of Object.keys(rows) as (keyof DetailsRows)[]) rows[name].push(...part[name]);
  }
  return rows;
}

/** The details of every node the rows describe, by IRI; where a value is stated twice, the first row wins. */
export function detailsFromRows(rows: DetailsRows): Map<string, NodeDetails> {
  const details = new Map<string, NodeDetails>();
  const of = (iri: string) => {
    let d = details.get(iri);
    if (!d) details.set(iri, (d = {}));
    return d;
  };
  const number = (text: string | undefined) => (text === undefined ? undefined : Number(text));
  const clip = (text: string | undefined, length: string | undefined): Clipped | undefined =>
    text === undefined ? undefined : { text, length: Number(length ?? text.length) };
  for (const r of rows.calls) {
    const d = of(r.n);
    d.call ??= {
      start: r.start,
      end: r.end,
      model: r.model,
      tokens: { input: number(r.in) ?? 0, output: number(r.out) ?? 0, cacheCreation: number(r.cw) ?? 0, cacheRead: number(r.cr) ?? 0 },
    };
  }
  for (const r of rows.tools) {
    const d = of(r.n);
    d.tool ??= {
      name: r.name,
      input: clip(r.inputClip, r.inputLength),
      error: r.error === undefined ? undefined : r.error === 'true',
      status: r.status,
      durationMs: number(r.ms),
      interrupted: r.interrupted === undefined ? undefined : r.interrupted === 'true',
      results: [],
    };
  }
  for (const r of rows.results) {
    const tool = details.get(r.n)?.tool;
    if (!tool) continue;
    const order = Number(r.order);
    const same = tool.results.find((p) => p.response === r.response && p.order === order);
    const kind = r.kind?.replace(/^.*[#/]/, '');
    if (same) {
      same.kind ??= kind;
      same.text ??= clip(r.textClip, r.textLength);
    } else tool.results.push({ response: r.response, order, kind, text: clip(r.textClip, r.textLength) });
  }
  for (const tool of [...details.values()].flatMap((d) => (d.tool ? [d.tool] : [])))
    tool.results.sort((x, y) => x.response.localeCompare(y.response) || x.order - y.order);
  for (const r of rows.texts) {
    const d = of(r.n);
    d.time ??= r.time;
    d.text ??= clip(r.textClip, r.textLength);
    d.labelledBy ??= r.label;
  }
  for (const r of rows.compactions) of(r.n).compaction ??= { trigger: r.trigger, preTokens: number(r.pre) };
  return details;
}
