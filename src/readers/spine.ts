import oxigraph from 'oxigraph';
import { sparqlPrefixes, WEAVE_NS } from '../rdf/vocab.ts';
import type { OxStore } from '../store/store.ts';

/**
 * One session's spine as readers see it: its turns in file order, each with its content blocks
 * (a tool result's own blocks nested inside it), read back from the session's stored graph with
 * SPARQL. Readers walk these plain values; only this module knows the spine's predicates.
 */

export interface TurnView {
  iri: string;
  /** The transcript (file) holding the turn: the annotation's `oa:hasSource`. */
  transcript: string;
  role: string;
  time?: string;
  line: number;
  isMeta?: boolean;
  isSidechain?: boolean;
  isCompactSummary?: boolean;
  isVisibleInTranscriptOnly?: boolean;
  originKind?: string;
  /** The event this one replies to (any event kind, not only turns). */
  parent?: string;
  blocks: BlockView[];
}

export type BlockKind = 'text' | 'thinking' | 'tool_use' | 'tool_result' | 'image' | 'other';

export interface BlockView {
  iri: string;
  turn: TurnView;
  order: number;
  kind: BlockKind;
  text?: string;
  toolName?: string;
  /** The tool input as its JSON text. */
  toolInput?: string;
  toolUseId?: string;
  /** On a tool result: whether the tool reported failure, and the tool use it answers. */
  isError?: boolean;
  toolUse?: string;
  /** A tool result's own content blocks. */
  blocks: BlockView[];
}

export type SourceKind = 'authored' | 'tool_result' | 'tool_input';

/** A piece of stored text a finding can point into. */
export interface TextSite {
  turn: TurnView;
  /** The block holding the text (for a tool result with list content, the inner text block). */
  block: BlockView;
  text: string;
  sourceKind: SourceKind;
  /** For tool input: the JSON Pointer (RFC 6901) of the string inside the input. */
  pointer?: string;
  /** For tool results: the result block (the same as `block` when its content is one string). */
  result?: BlockView;
}

export interface SessionSpine {
  sessionId: string;
  graph: string;
  /** Turns of all the session's transcripts, main transcript first, each in line order. */
  turns: TurnView[];
  turn(iri: string): TurnView | undefined;
  block(iri: string): BlockView | undefined;
  /** The parent of any event, turn or not. */
  parentOf(event: string): string | undefined;
}

const BLOCK_KIND: Record<string, BlockKind> = {
  TextBlock: 'text',
  ThinkingBlock: 'thinking',
  RedactedThinkingBlock: 'thinking',
  ToolUseBlock: 'tool_use',
  ServerToolUseBlock: 'tool_use',
  ToolResultBlock: 'tool_result',
  AdvisorToolResultBlock: 'tool_result',
  ImageBlock: 'image',
};

const TURNS = `SELECT ?turn ?transcript ?role ?time ?line ?meta ?side ?compact ?visible ?origin WHERE {
  ?transcript weave:hasEvent ?turn . ?turn a weave:Turn .
  OPTIONAL { ?turn weave:role ?role }
  OPTIONAL { ?turn weave:timestamp ?time }
  OPTIONAL { ?turn weave:sourceLine ?line }
  OPTIONAL { ?turn weave:isMeta ?meta }
  OPTIONAL { ?turn weave:isSidechain ?side }
  OPTIONAL { ?turn weave:isCompactSummary ?compact }
  OPTIONAL { ?turn weave:isVisibleInTranscriptOnly ?visible }
  OPTIONAL { ?turn weave:originKind ?origin }
}`;

const PARENTS = `SELECT ?event ?parent WHERE { ?event weave:parentEvent ?parent }`;

const BLOCKS = `SELECT ?owner ?block ?order ?class ?text ?name ?input ?useId ?error ?use WHERE {
  ?owner weave:hasContentBlock ?block .
  OPTIONAL { ?block weave:blockOrder ?order }
  OPTIONAL { ?block a ?class FILTER(?class != weave:ContentBlock) }
  OPTIONAL { ?block weave:text ?text }
  OPTIONAL { ?block weave:toolName ?name }
  OPTIONAL { ?block weave:toolInput ?input }
  OPTIONAL { ?block weave:toolUseId ?useId }
  OPTIONAL { ?block weave:toolIsError ?error }
  OPTIONAL { ?block weave:toolUseRef ?use }
}`;

type Row = Map<string, oxigraph.Term>;

/** Reads the spine of the session in `graph` (a named graph of `store`). */
export function loadSpine(store: OxStore, graph: string, sessionId: string): SessionSpine {
  const select = (query: string) => store.query(sparqlPrefixes() + query, { default_graph: oxigraph.namedNode(graph) }) as Row[];
  const value = (row: Row, name: string) => row.get(name)?.value;
  const flag = (row: Row, name: string) => (row.has(name) ? row.get(name)!.value === 'true' : undefined);

  const turns = new Map<string, TurnView>();
  for (const row of select(TURNS)) {
    const iri = value(row, 'turn')!;
    if (turns.has(iri)) continue;
    turns.set(iri, {
      iri,
      transcript: value(row, 'transcript')!,
      role: value(row, 'role') ?? '',
      time: value(row, 'time'),
      line: Number(value(row, 'line') ?? 0),
      isMeta: flag(row, 'meta'),
      isSidechain: flag(row, 'side'),
      isCompactSummary: flag(row, 'compact'),
      isVisibleInTranscriptOnly: flag(row, 'visible'),
      originKind: value(row, 'origin'),
      blocks: [],
    });
  }
  const parents = new Map<string, string>();
  for (const row of select(PARENTS)) parents.set(value(row, 'event')!, value(row, 'parent')!);
  for (const turn of turns.values()) turn.parent = parents.get(turn.iri);

  // Rows may repeat a block (a block with several classes); merge them, then nest by owner.
  const blocks = new Map<string, BlockView & { owner: string }>();
  for (const row of select(BLOCKS)) {
    const iri = value(row, 'block')!;
    let block = blocks.get(iri);
    if (!block) {
      blocks.set(
        iri,
        (block = { iri, owner: value(row, 'owner')!, turn: undefined as unknown as TurnView, order: 0, kind: 'other', blocks: [] }),
      );
      block.order = Number(value(row, 'order') ?? 0);
      block.text = value(row, 'text');
      block.toolName = value(row, 'name');
      block.toolInput = value(row, 'input');
      block.toolUseId = value(row, 'useId');
      block.isError = flag(row, 'error');
      block.toolUse = value(row, 'use');
    }
    const cls = value(row, 'class');
    const kind = cls?.startsWith(WEAVE_NS) ? BLOCK_KIND[cls.slice(WEAVE_NS.length)] : undefined;
    if (kind && block.kind === 'other') block.kind = kind;
  }
  const attach = (block: BlockView & { owner: string }): TurnView | undefined => {
    if (block.turn) return block.turn;
    const turn = turns.get(block.owner);
    if (turn) {
      turn.blocks.push(block);
      return (block.turn = turn);
    }
    const outer = blocks.get(block.owner);
    const owningTurn = outer && attach(outer);
    if (!owningTurn) return undefined;
    outer.blocks.push(block);
    return (block.turn = owningTurn);
  };
  for (const block of blocks.values()) attach(block);
  const byOrder = (a: BlockView, b: BlockView) => a.order - b.order;
  for (const block of blocks.values()) block.blocks.sort(byOrder);

  const ordered = [...turns.values()].sort((a, b) =>
    a.transcript === b.transcript ? a.line - b.line : a.transcript < b.transcript ? -1 : 1,
  );
  for (const turn of ordered) turn.blocks.sort(byOrder);
  return {
    sessionId,
    graph,
    turns: ordered,
    turn: (iri) => turns.get(iri),
    block: (iri) => {
      const block = blocks.get(iri);
      return block?.turn ? block : undefined;
    },
    parentOf: (event) => parents.get(event),
  };
}

/** Every text a person or the model wrote: the text blocks of all turns. */
export function* authoredSites(spine: SessionSpine): Generator<TextSite> {
  for (const turn of spine.turns)
    for (const block of turn.blocks)
      if (block.kind === 'text' && block.text) yield { turn, block, text: block.text, sourceKind: 'authored' };
}

/** Every text a tool returned: a result's string content, or each text block inside it. */
export function* toolResultSites(spine: SessionSpine): Generator<TextSite> {
  for (const turn of spine.turns)
    for (const result of turn.blocks) {
      if (result.kind !== 'tool_result') continue;
      if (result.text) yield { turn, block: result, text: result.text, sourceKind: 'tool_result', result };
      for (const inner of result.blocks)
        if (inner.kind === 'text' && inner.text) yield { turn, block: inner, text: inner.text, sourceKind: 'tool_result', result };
    }
}

/** Every tool use block of the session. */
export function* toolUses(spine: SessionSpine): Generator<BlockView> {
  for (const turn of spine.turns) for (const block of turn.blocks) if (block.kind === 'tool_use') yield block;
}

/**
 * Each non-empty string inside a tool use's input, with its JSON Pointer, in document order.
 * The walk keeps its own stack: an input nested thousands of levels deep is read like any other.
 */
export function toolInputSites(use: BlockView): TextSite[] {
  if (!use.toolInput) return [];
  let input: unknown;
  try {
    input = JSON.parse(use.toolInput);
  } catch {
    return [];
  }
  const sites: TextSite[] = [];
  const stack: [unknown, string][] = [[input, '']];
  while (stack.length) {
    const [value, pointer] = stack.pop()!;
    if (typeof value === 'string') {
      if (value) sites.push({ turn: use.turn, block: use, text: value, sourceKind: 'tool_input', pointer });
      continue;
    }
    if (!value || typeof value !== 'object') continue;
    const children: [unknown, string][] = Array.isArray(value)
      ? value.map((v, i) => [v, `${pointer}/${i}`])
      : Object.entries(value).map(([k, v]) => [v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`]);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return sites;
}

/** The tool use a result answers, when the spine links them. */
export function toolUseOf(spine: SessionSpine, result: BlockView): BlockView | undefined {
  return result.toolUse ? spine.block(result.toolUse) : undefined;
}

/** Whether `name` is tool `bare`, called directly or through any MCP server (`mcp__<server>__<bare>`). */
export function isTool(name: string | undefined, bare: string): boolean {
  return !!name && (name === bare || (name.startsWith('mcp__') && name.endsWith(`__${bare}`) && name.length > bare.length + 7));
}
