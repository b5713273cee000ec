import { readFileSync } from 'node:fs';
import { CONTENT_STATES } from './emit/content.ts';
import { soulOf } from './rdf/iri.ts';
import { WEAVE_NS } from './rdf/vocab.ts';

/**
 * What the store holds of each transcript file `weave verify` checks: first which graph holds
 * each file (one small query), then, graph by graph, the lines it accounts for and the texts it
 * stores. A verify so asks only the graphs of the files it checks, and holds the lines and texts
 * of a few graphs at once: on a store several machines feed, a machine's verify costs in its own
 * sessions, not the team's, and no one query has to cover a store of any size.
 */

/** A SELECT's solutions as rows of plain values, unbound variables absent. */
export type Select = (query: string) => Promise<Record<string, string>[]>;

type Accounted = 'event' | 'replayed' | 'malformed' | 'pending';

export interface HeldTranscript {
  session: string;
  /** The soul of the graph holding it. */
  soul?: string;
  byteLength?: number;
  /** The graphs holding it: one, or a copy of it in each of several machines' graphs. */
  graphs: Set<string>;
  lines: Map<number, Accounted>;
  contents: Map<number, Declaration[]>;
}

export interface Declaration {
  pointer: string;
  property: string;
  state: string;
  byteLength?: number;
  sha256?: string;
}

/** queries/stored-texts.rq: the documented way to every stored text's figures. */
const STORED_TEXTS = readFileSync(new URL('../queries/stored-texts.rq', import.meta.url), 'utf8');

/** The lines each transcript accounts for: its events, and its replayed, malformed and pending lines. */
const LINES = `SELECT ?path ?session ?line ?kind WHERE { GRAPH ?g {
  ?t weave:sourcePath ?path ; weave:sessionId ?session .
  { ?t weave:hasEvent ?x . ?x weave:sourceLine ?line . BIND("event" AS ?kind) }
  UNION
  { ?x weave:inTranscript ?t ; a ?class ; weave:sourceLine ?line .
    VALUES (?class ?kind) { (weave:ReplayedRecord "replayed") (weave:MalformedLine "malformed") (weave:PendingLine "pending") } }
} }`;

const STATE_NAMES = Object.fromEntries(Object.entries(CONTENT_STATES).map(([state, local]) => [`${WEAVE_NS}${local}`, state]));

/** Graphs whose lines and texts are held at once, at most (a transcript copied into more is held whole). */
const GRAPHS_PER_BATCH = 16;
/**
 * Graphs asked at once: an external store or the server answers them side by side. Each text
 * differs by its graph, so each is compiled anew (about 25 ms on Virtuoso 7.2, more than most
 * sessions take to answer); four at once take a fifth off that there, on two cores.
 */
const ASKED_AT_ONCE = 4;

/**
 * The transcript files a store holds, by key, each with its graphs and byte length; lines and
 * texts are filled by `fill`. This store's own graphs are keyed by path (`ownKey`), another
 * soul's by session and the path from the session's id on (`fileKey`).
 */
export class HeldTranscripts {
  private readonly byKey = new Map<string, HeldTranscript>();

  private constructor(private readonly soul: string) {}

  static async of(select: Select, soul: string): Promise<HeldTranscripts> {
    const held = new HeldTranscripts(soul);
    for (const row of await select(`SELECT ?g ?path ?session ?bytes WHERE { GRAPH ?g {
        ?t weave:sourcePath ?path ; weave:sessionId ?session .
        OPTIONAL { ?t weave:byteLength ?bytes } } }`)) {
      const graphSoul = soulOf(row.g);
      const t = held.at(row.path, row.session, graphSoul ?? soul);
      t.soul ??= graphSoul;
      t.graphs.add(row.g);
      if (row.bytes !== undefined) t.byteLength = Number(row.bytes);
    }
    return held;
  }

  /** What the store holds of the file at `path` of session `session`, if anything. */
  find(path: string, session: string): HeldTranscript | undefined {
    return this.byKey.get(ownKey(path)) ?? this.byKey.get(fileKey(path, session));
  }

  /**
   * Fills the lines and texts of `transcripts` from their graphs, a batch at a time, calling
   * `check` with each batch once it is filled; each batch's lines and texts are let go after.
   * Transcripts are taken in the order of their graphs, so those sharing one are filled by one
   * asking of it.
   */
  async inBatches(transcripts: Iterable<HeldTranscript>, select: Select, check: (batch: HeldTranscript[]) => Promise<void>): Promise<void> {
    const ordered = [...new Set(transcripts)].sort((a, b) => firstOf(a.graphs).localeCompare(firstOf(b.graphs)));
    let batch: HeldTranscript[] = [];
    let graphs = new Set<string>();
    const flush = async () => {
      if (!batch.length) return;
      await this.fill(batch, graphs, select);
      await check(batch);
      for (const t of batch) {
        t.lines = new Map();
        t.contents = new Map();
      }
      batch = [];
      graphs = new Set();
    };
    for (const t of ordered) {
      const adds = [...t.graphs].filter((g) => !graphs.has(g));
      if (graphs.size && graphs.size + adds.length > GRAPHS_PER_BATCH) await flush();
      batch.push(t);
      for (const g of t.graphs) graphs.add(g);
    }
    await flush();
  }

  /** The lines and texts of `batch` from `graphs`, a graph at a time; rows of transcripts not in the batch are passed over. */
  private async fill(batch: HeldTranscript[], graphs: Set<string>, select: Select): Promise<void> {
    const wanted = new Set(batch);
    const list = [...graphs];
    for (let i = 0; i < list.length; i += ASKED_AT_ONCE) {
      const part = list.slice(i, i + ASKED_AT_ONCE);
      const answers = await Promise.all(
        part.map(async (graph) => [await select(inGraph(LINES, graph)), await select(inGraph(STORED_TEXTS, graph))]),
      );
      // Taken in the graphs' order, whichever answered first.
      part.forEach((graph, k) => {
        const [lines, texts] = answers[k];
        const soul = soulOf(graph) ?? this.soul;
        // Within one graph: a record copied into two sessions is one IRI in two graphs.
        for (const row of lines) {
          const t = this.at(row.path, row.session, soul);
          if (wanted.has(t)) t.lines.set(Number(row.line), row.kind as Accounted);
        }
        // Every stored text with its state, length, digest and pointer, from its Content node or from the graph.
        for (const row of texts) {
          const t = this.at(row.path, row.session, soul);
          if (!wanted.has(t)) continue;
          const line = Number(row.line);
          const list = t.contents.get(line) ?? [];
          list.push({
            pointer: row.pointer,
            property: row.property.startsWith(WEAVE_NS) ? row.property.slice(WEAVE_NS.length) : row.property,
            state: STATE_NAMES[row.state] ?? row.state,
            byteLength: row.byteLength === undefined ? undefined : Number(row.byteLength),
            sha256: row.sha256,
          });
          t.contents.set(line, list);
        }
      });
    }
  }

  /** A file of a graph of `graphSoul`: this store's own by path, as ever; another soul's by session and path from it on. */
  private at(path: string, session: string, graphSoul: string): HeldTranscript {
    const key = graphSoul === this.soul ? ownKey(path) : fileKey(path, session);
    let t = this.byKey.get(key);
    if (!t) this.byKey.set(key, (t = { session, graphs: new Set(), lines: new Map(), contents: new Map() }));
    return t;
  }
}

/**
 * `query` asked of one graph: its `GRAPH ?g` made `GRAPH <graph>`. Engines find a named graph
 * fastest so: on Virtuoso 7.2 a session's texts take 0.05 s so, 14 s as FROM NAMED or VALUES.
 */
function inGraph(query: string, graph: string): string {
  const parts = query.split('GRAPH ?g {');
  if (parts.length !== 2) throw new Error('the query has no one GRAPH ?g to name its graph in');
  return parts.join(`GRAPH <${graph}> {`);
}

function firstOf(graphs: Set<string>): string {
  return graphs.values().next().value ?? '';
}

/**
 * A transcript file by its session and its path from the session's id on (`<id>.jsonl`,
 * `<id>/subagents/agent-….jsonl`): a store several machines feed holds files of other machines,
 * where one path can be two sessions, and a session copied from another machine is held once,
 * under the path it had there.
 */
function fileKey(path: string, session: string): string {
  const at = path.lastIndexOf(`/${session}`);
  return `${session}\u0000${at >= 0 ? path.slice(at + 1) : path}`;
}

/** A transcript file of this store's own soul: by its path (another machine's copy that went on may share its session id). */
function ownKey(path: string): string {
  return `\u0000${path}`;
}
