import oxigraph from 'oxigraph';
import { fitted, NONE, SharedLists } from '../lists.ts';
import { feedGraph, type GraphLine } from '../derive/graph-input.ts';
import { keptText, textOf, type Text } from '../derive/stored-text.ts';
import type { GraphEntry } from '../store/manifest.ts';
import { TextOnce, unsliced, type Term } from '../rdf/terms.ts';
import { DIALECTS } from '../dialect/index.ts';
import { a, weave } from '../rdf/vocab.ts';
import type { BlockKind, BlockView, MalformedLineView, SessionSpine, TurnView } from './spine.ts';

/**
 * One session's spine as readers see it (spine.ts), built from the session's triples in one pass,
 * in any order: as the emitter writes them during ingest, or line by line from the session's
 * graph file. No store and no query: each triple whose predicate the spine reads is kept, the
 * rest is passed over, and `build` assembles turns and blocks once the session is complete.
 */

const BLOCK_KIND: Partial<Record<Term, BlockKind>> = {
  [weave.TextBlock]: 'text',
  [weave.ThinkingBlock]: 'thinking',
  [weave.RedactedThinkingBlock]: 'thinking',
  [weave.ToolUseBlock]: 'tool_use',
  [weave.ServerToolUseBlock]: 'tool_use',
  [weave.ToolResultBlock]: 'tool_result',
  [weave.AdvisorToolResultBlock]: 'tool_result',
  [weave.ImageBlock]: 'image',
};
/** A turn's role is its class's (weave:turnRole), unless it states one. */
const CLASS_ROLE: Partial<Record<Term, string>> = { [weave.UserTurn]: 'user', [weave.AssistantTurn]: 'assistant' };

/**
 * The classes the spine reads (of turns, blocks, malformed lines and transcripts), each to itself:
 * a node keeps the constant, not the term cut from its line. A node's other classes are passed over.
 */
const CLASSES = new Map<Term, Term>(
  [
    weave.Turn,
    weave.MalformedLine,
    weave.Transcript,
    ...(Object.keys(CLASS_ROLE) as Term[]),
    ...(Object.keys(BLOCK_KIND) as Term[]),
    ...DIALECTS.map((d) => d.transcriptClass),
  ].map((c) => [c, c]),
);

/** The predicates whose objects are kept, each under its own name. */
const KEPT = {
  [weave.timestamp]: 'time',
  [weave.sourceLine]: 'line',
  [weave.role]: 'role',
  [weave.isMeta]: 'isMeta',
  [weave.isSidechain]: 'isSidechain',
  [weave.isCompactSummary]: 'isCompactSummary',
  [weave.isVisibleInTranscriptOnly]: 'isVisibleInTranscriptOnly',
  [weave.originKind]: 'originKind',
  [weave.blockOrder]: 'order',
  [weave.text]: 'text',
  [weave.toolName]: 'toolName',
  [weave.toolInput]: 'toolInput',
  [weave.toolUseId]: 'toolUseId',
  [weave.toolIsError]: 'isError',
  [weave.toolUseRef]: 'toolUse',
  [weave.rawText]: 'rawText',
} as const satisfies Partial<Record<Term, string>>;
type Field = (typeof KEPT)[keyof typeof KEPT];
/** The fields whose long texts are left in the graph file when read from one (stored-text.ts): a long session's texts. */
type LeftField = 'text' | 'toolInput';
type Fields = { [F in Field]?: F extends LeftField ? Text : string };

interface Node {
  fields: Fields;
  /**
   * The classes the spine reads, in the order stated: most nodes have one, kept without a list;
   * a list is shared by every node with the same classes (withClass).
   */
  classes?: Term | readonly Term[];
  lacksSidechain?: boolean;
}

export class SpineBuilder {
  private readonly nodes = new Map<string, Node>();
  /** Event → the transcript holding it (the first that says so). */
  private readonly transcriptOf = new Map<string, string>();
  private readonly parents = new Map<string, string>();
  /** Line that is not a record → its transcript (weave:inTranscript). */
  private readonly malformedIn = new Map<string, string>();
  /** Owner (turn or block) → its blocks, in the order they were stated. */
  private readonly owned = new Map<string, string[]>();
  /** Each IRI once: a turn's is a key of four maps, and a value of two. */
  private readonly iris = new TextOnce();

  /** One triple of the session, its terms as N-Triples text, and where its line is when read from a file. */
  add(s: Term, p: Term, o: Term, line?: GraphLine): void {
    const field = KEPT[p as keyof typeof KEPT];
    if (field) {
      const fields = this.node(s).fields;
      if (fields[field] !== undefined) return;
      if (field === 'text' || field === 'toolInput') fields[field] = o.startsWith('<') ? this.iri(o) : keptText(o, line);
      else fields[field] = field === 'time' ? storedValue(o) : o.startsWith('<') ? this.iri(o) : termValue(o);
    } else if (p === a) {
      const known = CLASSES.get(o);
      if (known) {
        const node = this.node(s);
        node.classes = node.classes === undefined ? known : withClass(node.classes, known);
      }
    } else if (p === weave.hasEvent) {
      const event = this.iri(o);
      if (!this.transcriptOf.has(event)) this.transcriptOf.set(event, this.iri(s));
    } else if (p === weave.parentEvent) this.parents.set(this.iri(s), this.iri(o));
    else if (p === weave.inTranscript) this.malformedIn.set(this.iri(s), this.iri(o));
    else if (p === weave.hasContentBlock) {
      const owner = this.iri(s);
      const list = this.owned.get(owner);
      if (list) list.push(this.iri(o));
      else this.owned.set(owner, [this.iri(o)]);
    } else if (p === weave.lacks && o === weave.isSidechain) this.node(s).lacksSidechain = true;
  }

  /** An IRI term's text, the same string wherever it is kept: copied only the first time it is seen. */
  private iri(term: Term): string {
    return this.iris.of(boundText(term));
  }

  /**
   * The spine of the session in `graph`, once every triple of it has been added. Called once: each
   * turn's and block's node, and each owner's list of blocks, is let go as its view is made (and
   * the map that found each IRI's one copy at the start), so a long session's nodes and views are
   * never all held at once.
   */
  build(graph: string, sessionId: string): SessionSpine {
    const flag = (v: string | undefined) => (v === undefined ? undefined : v === 'true');
    this.iris.forget();
    const turns = new Map<string, TurnView>();
    for (const [iri, transcript] of this.transcriptOf) {
      const node = this.nodes.get(iri);
      if (!node || !classesOf(node).includes(weave.Turn)) continue;
      this.nodes.delete(iri);
      const f = node.fields;
      // The sidechain flag is the turn's own, else its transcript's unless it had none (weave:lacks).
      const side = f.isSidechain ?? (node.lacksSidechain ? undefined : this.nodes.get(transcript)?.fields.isSidechain);
      turns.set(iri, {
        iri,
        transcript,
        role:
          f.role ??
          classesOf(node)
            .map((c) => CLASS_ROLE[c])
            .find(Boolean) ??
          '',
        time: f.time,
        line: Number(f.line ?? 0),
        isMeta: flag(f.isMeta),
        isSidechain: flag(side),
        isCompactSummary: flag(f.isCompactSummary),
        isVisibleInTranscriptOnly: flag(f.isVisibleInTranscriptOnly),
        originKind: f.originKind,
        parent: this.parents.get(iri),
        blocks: [],
      });
    }

    const blocks = new Map<string, BlockNode>();
    for (const [owner, list] of this.owned) {
      this.owned.delete(owner);
      for (const iri of list) {
        if (blocks.has(iri)) continue;
        const node = this.nodes.get(iri);
        this.nodes.delete(iri);
        const f = node?.fields ?? {};
        const toolUse = f.toolUse;
        blocks.set(
          iri,
          new BlockNode(
            iri,
            owner,
            Number(f.order ?? 0),
            (node ? classesOf(node) : []).map((c) => BLOCK_KIND[c]).find(Boolean) ?? 'other',
            {
              text: f.text,
              toolName: f.toolName,
              toolInput: f.toolInput,
              // A result's tool use id is the use's where the link resolved (the result states it only
              // otherwise): from the use's view once made (its node is let go then), else its node.
              toolUseId:
                f.toolUseId ??
                (toolUse === undefined ? undefined : (blocks.get(toolUse)?.toolUseId ?? this.nodes.get(toolUse)?.fields.toolUseId)),
              isError: flag(f.isError),
              toolUse,
            },
          ),
        );
      }
    }
    const attach = (block: BlockNode): TurnView | undefined => {
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
    const byOrder = (x: BlockView, y: BlockView) => x.order - y.order;
    for (const block of blocks.values()) block.blocks = fitted(block.blocks.sort(byOrder));

    const ordered = [...turns.values()].sort((x, y) =>
      x.transcript === y.transcript ? x.line - y.line : x.transcript < y.transcript ? -1 : 1,
    );
    for (const turn of ordered) turn.blocks = fitted(turn.blocks.sort(byOrder));
    const transcripts = new Set(this.transcriptOf.values());
    const malformedLines: MalformedLineView[] = [];
    for (const [iri, transcript] of this.malformedIn) {
      const node = this.nodes.get(iri);
      if (!node || !classesOf(node).includes(weave.MalformedLine)) continue;
      malformedLines.push({ iri, transcript, line: Number(node.fields.line ?? 0), text: node.fields.rawText ?? '' });
    }
    malformedLines.sort((x, y) => (x.transcript === y.transcript ? x.line - y.line : x.transcript < y.transcript ? -1 : 1));
    // The spine holds the parents, not the builder: its nodes go once the spine is built.
    const parents = this.parents;
    return {
      sessionId,
      graph,
      transcriptClasses: [...new Set([...transcripts].flatMap((t) => classesOf(this.nodes.get(t))))].map(termValue),
      turns: ordered,
      malformedLines,
      turn: (iri) => turns.get(iri),
      block: (iri) => {
        const block = blocks.get(iri);
        return block?.turn ? block : undefined;
      },
      parentOf: (event) => parents.get(event),
    };
  }

  private node(subject: Term): Node {
    const key = this.iri(subject);
    let node = this.nodes.get(key);
    if (!node) this.nodes.set(key, (node = { fields: {} }));
    return node;
  }
}

/**
 * A block's view, its text and tool input read from the graph file when they were left there
 * (stored-text.ts): a reader asks for them as it walks, and holds none once past.
 */
class BlockNode implements BlockView {
  turn = undefined as unknown as TurnView;
  blocks: BlockView[] = [];
  readonly toolName?: string;
  readonly toolUseId?: string;
  readonly isError?: boolean;
  readonly toolUse?: string;
  private readonly storedText?: Text;
  private readonly storedInput?: Text;

  constructor(
    readonly iri: string,
    /** The turn or block that holds it. */
    readonly owner: string,
    readonly order: number,
    readonly kind: BlockKind,
    f: { text?: Text; toolName?: string; toolInput?: Text; toolUseId?: string; isError?: boolean; toolUse?: string },
  ) {
    this.storedText = f.text;
    this.toolName = f.toolName;
    this.storedInput = f.toolInput;
    this.toolUseId = f.toolUseId;
    this.isError = f.isError;
    this.toolUse = f.toolUse;
  }

  get text(): string | undefined {
    return this.storedText === undefined ? undefined : textOf(this.storedText);
  }

  get toolInput(): string | undefined {
    return this.storedInput === undefined ? undefined : textOf(this.storedInput);
  }
}

/** The lists of classes nodes are given, each made once (lists.ts). */
const CLASS_LISTS = new SharedLists<Term>();

function withClass(classes: Term | readonly Term[], added: Term): readonly Term[] {
  return CLASS_LISTS.with(typeof classes === 'string' ? CLASS_LISTS.with(NONE, classes) : classes, added);
}

/** A node's classes as a list (none for a node the spine never saw). */
function classesOf(node: Node | undefined): readonly Term[] {
  const classes = node?.classes;
  return classes === undefined ? [] : typeof classes === 'string' ? [classes] : classes;
}

/** A session's spine read from its graph's files (spine, derived part), as much of each as its entry names, one line at a time. */
export async function spineFromGraph(storeDir: string, entry: GraphEntry, graph: string, sessionId: string): Promise<SessionSpine> {
  const builder = new SpineBuilder();
  await feedGraph(storeDir, entry, (s, p, o, line) => builder.add(s, p, o, line));
  return builder.build(graph, sessionId);
}

/** A store for one literal at a time: it gives a value back as Oxigraph stores it. */
const canonical = new oxigraph.Store();
const XSD_DATE_TIME = '^^<http://www.w3.org/2001/XMLSchema#dateTime>';

/**
 * A literal's value as a store gives it back: a dateTime in its canonical form (no trailing
 * zeros in the fraction, Z for +00:00), as readers always saw it through SPARQL.
 */
export function storedValue(term: string): string {
  if (!term.endsWith(XSD_DATE_TIME)) return termValue(term);
  // The runtimes' form (UTC, a short fraction) is put in canonical form here: a store's round
  // trip per timestamp cost more than the readers themselves.
  const utc = canonicalUtc(term);
  if (utc) return utc;
  canonical.load(`<urn:weave:x> <urn:weave:x> ${term} .`, { format: 'application/n-triples' });
  const [quad] = canonical.match(null, null, null, null);
  canonical.delete(quad);
  return quad.object.value;
}

const UTC_DATE_TIME = /^"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z"/;

/**
 * `YYYY-MM-DDThh:mm:ss[.f]Z` of a valid day and time, in canonical form (the fraction without
 * its trailing zeros, none when it is zero); undefined for any other form, which the store puts
 * in canonical form.
 */
function canonicalUtc(term: string): string | undefined {
  if (term.length !== term.indexOf('"', 1) + 1 + XSD_DATE_TIME.length) return undefined;
  const m = UTC_DATE_TIME.exec(term);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec, fraction = ''] = m;
  const [year, month, day] = [Number(y), Number(mo), Number(d)];
  if (year < 1000 || month < 1 || month > 12 || day < 1 || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return undefined;
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return undefined;
  const kept = fraction.replace(/0+$/, '');
  // Flat: the pieces joined lazily would be kept as a tree of eight strings for every timestamp.
  return unsliced(`${y}-${mo}-${d}T${h}:${mi}:${sec}${kept ? `.${kept}` : ''}Z`);
}

const ESCAPES: Record<string, string> = { t: '\t', b: '\b', n: '\n', r: '\r', f: '\f', '"': '"', "'": "'", '\\': '\\' };

/** What SPARQL would bind for a term: an IRI without its brackets, a literal's lexical form, unescaped; a string of its own. */
function termValue(term: string): string {
  return unsliced(boundText(term));
}

/** termValue, as a view into the term where it needs no unescaping (to look up, not to keep). */
function boundText(term: string): string {
  if (term.startsWith('<')) return unescapeTerm(term.slice(1, -1));
  if (term.startsWith('"')) return unescapeTerm(term.slice(1, term.lastIndexOf('"')));
  return term;
}

function unescapeTerm(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(?:u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|(.))/g, (_, u4: string, u8: string, c: string) =>
    u4 || u8 ? String.fromCodePoint(Number.parseInt(u4 ?? u8, 16)) : (ESCAPES[c] ?? c),
  );
}
