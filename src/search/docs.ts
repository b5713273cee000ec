import type { GraphLine } from '../derive/graph-input.ts';
import { keptText, textOf, type Text } from '../derive/stored-text.ts';
import { splitQuad } from '../rdf/nquads.ts';
import { RDF, termText, TextOnce, unsliced } from '../rdf/terms.ts';
import { WEAVE_NS } from '../rdf/vocab.ts';
import { redact } from '../readers/redact.ts';
import { subAgentTitle } from '../model/session-title.ts';
import { larger } from '../usage/rows.ts';

/**
 * What `weave search` finds: the texts of turns (what a person or the model wrote), tool inputs
 * and tool results, one document per content block. Documents are gathered from a session's
 * triples as they stream to its graph file (or read back from one), so the index never needs
 * the store loaded. Documents are kept beside the graph (search/), so every text in them has its
 * secrets redacted as a reader's quote has (readers/redact.ts): a search finds where a key was
 * (`redacted`), never the key.
 */

export type DocKind = 'text' | 'tool input' | 'tool result';

export interface SearchDoc {
  /** `<session> <block IRI>`: a block copied into two sessions (a fork) is a document in each. */
  id: string;
  session: string;
  /** The IRI of the record (turn) the block belongs to: its page is /describe of it. */
  event: string;
  block: string;
  kind: DocKind;
  /** user or assistant, for texts. */
  role?: string;
  tool?: string;
  time?: string;
  /** The sub-agent stream (its transcript's IRI) the block was written in; absent for the session's main stream. */
  stream?: string;
  text: string;
  /** A tool result's tool use, when its name was not among the triples read (a read carried on from an earlier one): not indexed. */
  useBlock?: string;
}

const W = (name: string) => `<${WEAVE_NS}${name}>`;
const P = {
  type: `<${RDF}type>`,
  hasContentBlock: W('hasContentBlock'),
  text: W('text'),
  toolInput: W('toolInput'),
  toolName: W('toolName'),
  toolUseRef: W('toolUseRef'),
  title: W('title'),
  hasEvent: W('hasEvent'),
  parentTranscript: W('parentTranscript'),
  fileAbsent: W('fileAbsent'),
  role: W('role'),
  timestamp: W('timestamp'),
};
/** A turn's role is its class's (weave:turnRole in the ontology), unless the turn states one. */
const CLASS_ROLES: Record<string, string> = { [W('UserTurn')]: 'user', [W('AssistantTurn')]: 'assistant' };
const KINDS: Record<string, DocKind> = {
  [W('TextBlock')]: 'text',
  [W('ToolUseBlock')]: 'tool input',
  [W('ToolResultBlock')]: 'tool result',
};

/**
 * Every triple a collector reads, as a SPARQL pattern over `graph`: its predicates, and `rdf:type`
 * with the classes it knows. A fifth of a session graph's triples: what an external store is
 * asked for when another machine's session is searched from this one (others.ts).
 */
export function documentTriples(graph: string): string {
  const predicates = Object.values(P).filter((p) => p !== P.type);
  const classes = [...Object.keys(KINDS), ...Object.keys(CLASS_ROLES)];
  return `GRAPH <${graph}> { { ?s ?p ?o VALUES ?p { ${predicates.join(' ')} } } UNION { ?s ?p ?o VALUES (?p ?o) { ${classes.map((c) => `(${P.type} ${c})`).join(' ')} } } }`;
}

interface Block {
  kind?: DocKind;
  text?: Text;
  input?: Text;
  tool?: string;
  useRef?: string;
  parent?: string;
}

/** Gathers one session's documents from its triples (N-Triples terms), in any order. */
export class DocCollector {
  private readonly blocks = new Map<string, Block>();
  private readonly events = new Map<string, { role?: string; classRole?: string; time?: string }>();
  private readonly titles = new Map<string, string>();
  /** Each sub-agent's transcript, and its main transcript. */
  private readonly children = new Map<string, string>();
  /** Main transcripts whose file is absent. */
  private readonly absent = new Set<string>();
  /** Each event's transcript. */
  private readonly transcripts = new Map<string, string>();
  /** Each IRI once: an event's is a key of two maps and every one of its blocks' parent. */
  private readonly iris = new TextOnce();

  constructor(readonly session: string) {}

  /** One triple, and where its line is when read from the graph's files (a long text is left there: stored-text.ts). */
  triple(s: string, p: string, o: string, line?: GraphLine): void {
    switch (p) {
      case P.type:
        if (KINDS[o]) this.block(s).kind = KINDS[o];
        else if (CLASS_ROLES[o]) this.event(s).classRole = CLASS_ROLES[o];
        break;
      case P.hasContentBlock:
        this.block(o).parent = this.iris.of(s);
        break;
      case P.text:
        this.block(s).text = kept(o, line);
        break;
      case P.toolInput:
        this.block(s).input = kept(o, line);
        break;
      case P.toolName:
        this.block(s).tool = termText(o);
        break;
      case P.toolUseRef:
        this.block(s).useRef = s === o ? undefined : this.iris.of(o);
        break;
      case P.role:
        this.event(s).role = termText(o);
        break;
      case P.timestamp:
        this.event(s).time = termText(o);
        break;
      case P.title:
        this.titles.set(unsliced(s), termText(o));
        break;
      case P.parentTranscript:
        this.children.set(unsliced(s), unsliced(o));
        break;
      case P.fileAbsent:
        this.absent.add(unsliced(s));
        break;
      case P.hasEvent:
        this.transcripts.set(this.iris.of(o), this.iris.of(s));
        break;
    }
  }

  /** The session's title, as the lists give it (model/session-title.ts): its main transcript's, else where that file is absent a sub-agent's, marked. */
  title(): string | undefined {
    let child: string | undefined;
    for (const [transcript, title] of this.titles) {
      const main = this.children.get(transcript);
      if (main === undefined) return redact(title);
      if (this.absent.has(main)) child = child === undefined ? title : larger(child, title);
    }
    return child === undefined ? undefined : subAgentTitle(redact(child));
  }

  /** The session's documents, once every triple is in (the map that found each IRI's one copy goes). */
  docs(): SearchDoc[] {
    this.iris.forget();
    const out: SearchDoc[] = [];
    for (const [iri, b] of this.blocks) {
      if (!b.kind) continue;
      const text = b.kind === 'tool input' ? b.input : b.text;
      if (!text || (typeof text === 'string' && !text.trim())) continue;
      // A block inside a tool result belongs to the result's record.
      let event = b.parent;
      while (event && this.blocks.get(event)?.parent) event = this.blocks.get(event)!.parent;
      if (!event) continue;
      const e = this.events.get(event);
      const role = e?.role ?? e?.classRole;
      const tool = b.tool ?? (b.useRef ? this.blocks.get(b.useRef)?.tool : undefined);
      const stream = this.subAgentStream(event);
      const doc = {
        id: `${this.session} ${unwrap(iri)}`,
        session: this.session,
        event: unwrap(event),
        block: unwrap(iri),
        kind: b.kind,
        ...(role && b.kind === 'text' ? { role: redact(role) } : {}),
        ...(tool ? { tool: redact(tool) } : {}),
        ...(!tool && b.useRef ? { useBlock: unwrap(b.useRef) } : {}),
        ...(e?.time ? { time: redact(e.time) } : {}),
        ...(stream ? { stream } : {}),
      } as SearchDoc;
      // A text left in the graph file is read when the document is written, one at a time.
      if (typeof text === 'string') doc.text = redact(text);
      else Object.defineProperty(doc, 'text', { enumerable: true, get: () => redact(textOf(text)) });
      out.push(doc);
    }
    return out.sort((a, b) => (a.time ?? '').localeCompare(b.time ?? '') || a.block.localeCompare(b.block));
  }

  /**
   * The sub-agent transcript an event was written in, or undefined for the main one. Told by the
   * transcript's IRI (the main one is named by the session alone: emit/session.ts), since a read
   * carried on does not state a sub-agent's parentTranscript again.
   */
  private subAgentStream(event: string): string | undefined {
    const transcript = this.transcripts.get(event);
    if (!transcript) return undefined;
    const main = unwrap(transcript).endsWith(`/Transcript/${encodeURIComponent(this.session)}`);
    return main ? undefined : unwrap(transcript);
  }

  private block(iri: string): Block {
    let b = this.blocks.get(iri);
    if (!b) this.blocks.set(this.iris.of(iri), (b = {}));
    return b;
  }

  private event(iri: string): { role?: string; classRole?: string; time?: string } {
    let e = this.events.get(iri);
    if (!e) this.events.set(this.iris.of(iri), (e = {}));
    return e;
  }
}

/**
 * A text as kept: a long one left in its graph file (stored-text.ts) unless it is blank (no
 * document). A literal whose first character is neither space nor escape is not blank, so almost
 * no long text is unescaped here only to be tested.
 */
function kept(o: string, line: GraphLine | undefined): Text {
  const text = keptText(o, line);
  if (typeof text === 'string' || (o.length > 1 && !/[\s\\"]/.test(o[1]))) return text;
  return termText(o).trim() ? text : '';
}

const unwrap = (iri: string) => (iri.startsWith('<') ? iri.slice(1, -1) : iri);

/** The triples of an N-Quads text this project wrote (blank lines and any others skipped). */
export function* quadsOf(text: string): Generator<[string, string, string]> {
  for (const line of text.split('\n')) {
    const quad = splitQuad(line);
    if (quad) yield quad;
  }
}
