/**
 * One session's spine as readers see it: its turns in file order, each with its content blocks
 * (a tool result's own blocks nested inside it), built from the session's triples in one pass
 * (spine-builder.ts, the one module that knows the spine's predicates). Readers walk these plain
 * values.
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

type SourceKind = 'authored' | 'tool_result' | 'tool_input';

/** A line of a transcript that is not a record (weave:MalformedLine), kept with its raw text. */
export interface MalformedLineView {
  iri: string;
  transcript: string;
  line: number;
  text: string;
}

/**
 * The raw text of a malformed line as a place a finding can point into: no turn or block holds
 * it, so the finding's target is the line itself (weave:atEvent, without weave:atBlock).
 */
export interface LineSite {
  line: MalformedLineView;
  text: string;
  sourceKind: 'malformed_line';
}

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
  /** The classes of the session's transcripts (weave:ClaudeCodeTranscript, …): which runtime wrote it. */
  transcriptClasses?: string[];
  /** Turns of all the session's transcripts, main transcript first, each in line order. */
  turns: TurnView[];
  /** Lines that are not records, in the same order as the turns. */
  malformedLines: MalformedLineView[];
  turn(iri: string): TurnView | undefined;
  block(iri: string): BlockView | undefined;
  /** The parent of any event, turn or not. */
  parentOf(event: string): string | undefined;
}

/** Every text a person or the model wrote: the text blocks of all turns. */
export function* authoredSites(spine: SessionSpine): Generator<TextSite> {
  for (const turn of spine.turns)
    for (const block of turn.blocks)
      if (block.kind === 'text' && block.text) yield { turn, block, text: block.text, sourceKind: 'authored' };
}

/** The raw text of every line that is not a record: a secret pasted into a broken line is still a secret. */
export function* malformedLineSites(spine: SessionSpine): Generator<LineSite> {
  for (const line of spine.malformedLines) if (line.text) yield { line, text: line.text, sourceKind: 'malformed_line' };
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
