import {
  type ConversationDocument,
  type ConversationView,
  isCompactionRequest,
  isSummariser,
  type StartView,
  TOP_KINDS,
  type TreeDocument,
  type TreeNode,
  UNRESOLVED_REASONS,
} from '../../../model/view.ts';
import type { Clipped, NodeDetails, ToolDetails } from '../conversation-details.ts';
import { page, queryLink, topBar } from './chrome.ts';
import { type Compactions, compactionsText, describeHref, escapeHtml } from './html.ts';
import { termHtml } from './terms.ts';

/**
 * /conversation/<session>: one session as it happened, read from the conversation model (the
 * document `weave conversation --json` prints): talk → run → llm.call → tool, with times, tokens,
 * the model's words, thinking and tool inputs and results folded, each sub-agent's stream nested
 * under the call that started it, and compactions as dividers between epochs. Static HTML: every
 * value from the graph is escaped, and no script runs.
 */

interface ConversationPageData {
  document: ConversationDocument;
  starts: StartView[];
  details: Map<string, NodeDetails>;
  title?: string;
  project?: string;
  start?: string;
  end?: string;
  /** The session's compactions, as its session page counts them (not shown when not given). */
  compactions?: Compactions;
  /** The session's main transcript: its describe page is the session page. */
  transcript: string;
  /** The tree's own query, opened in the query page from the page. */
  treeQuery: string;
  /** The first talk of the main stream to show (1-based): a long session is shown TALKS_PER_PAGE talks at a time. */
  from?: number;
  /** Talks a page shows (TALKS_PER_PAGE). */
  talksPerPage?: number;
}

/**
 * Talks of the main stream on one page: a session of 89k lines has some 15,000 talks, whose page
 * whole was 120 MB of HTML.
 */
export const TALKS_PER_PAGE = 100;

/** The part of the main stream one page shows: its talks, and the lines they span (a talk and what follows it up to the next). */
interface Window {
  /** Talks a page shows. */
  size: number;
  from: number;
  to: number;
  total: number;
  /** Lines from `lo` up to, not including, `hi`: the first page from the start, the last to the end. */
  lo: number;
  hi: number;
}

/** A node of the tree as the view or the document holds it: its line is the view's `order`, the document's `line`. */
interface Node {
  iri: string;
  kind: string;
  label: string;
  children: Node[];
}

const lineOf = (node: Node) => (node as { line?: number }).line ?? (node as { order?: number }).order ?? 0;

function windowOf(main: Node | undefined, from = 1, size = TALKS_PER_PAGE): Window {
  const talks = (main?.children ?? []).flatMap((c) =>
    c.kind === 'epoch' ? c.children.filter((t) => t.kind === 'talk') : c.kind === 'talk' ? [c] : [],
  );
  const total = talks.length;
  const first = Math.min(Math.max(1, Math.floor(from)), Math.max(1, total - ((total - 1) % size)));
  const to = Math.min(total, first + size - 1);
  return {
    size,
    from: first,
    to,
    total,
    lo: first > 1 ? lineOf(talks[first - 1]) : Number.NEGATIVE_INFINITY,
    hi: to < total ? lineOf(talks[to]) : Number.POSITIVE_INFINITY,
  };
}

/** The nodes under `node` where the top of the tree ends (readView reads what lies within them). */
function frontier(node: Node): string[] {
  return TOP_KINDS.has(node.kind) ? node.children.flatMap(frontier) : [node.iri];
}

/**
 * Where the session's page is one of several (its main stream holds more than TALKS_PER_PAGE
 * talks), the nodes it shows: those whose details it reads.
 */
export function pageNodes(view: ConversationView, from = 1, size = TALKS_PER_PAGE): string[] | undefined {
  if (windowOf(view.root.children[0], from, size).total <= size) return undefined;
  const shown = new Set(shownOnPage(from, size)(view));
  const nodes: string[] = [];
  const walk = (n: TreeNode, on: boolean) => {
    const here = on || shown.has(n.iri);
    if (here) nodes.push(n.iri);
    for (const child of n.children) walk(child, here);
  };
  walk(view.root, false);
  return nodes;
}

/**
 * What the page of talks from `from` shows of a session's tree beyond its top (readView): for a
 * session of TALKS_PER_PAGE talks or fewer, all of it; else the main stream's nodes in the page's
 * lines, each sub-agent stream a call read so far started, and on the last page the compaction
 * summarisers and the streams no call with a place in the tree started.
 */
export function shownOnPage(from = 1, size = TALKS_PER_PAGE): (view: ConversationView) => string[] {
  return (view) => {
    const [main, ...others] = view.root.children;
    const w = windowOf(main, from, size);
    if (w.total <= size) return frontier(view.root);
    const inWindow = (n: Node) => lineOf(n) >= w.lo && lineOf(n) < w.hi;
    // The main stream's epochs, cut to the page's lines as the page draws them.
    const shown = (main?.children ?? []).flatMap((c) =>
      c.kind === 'epoch' ? c.children.filter(inWindow).flatMap(frontier) : inWindow(c) ? frontier(c) : [],
    );
    const read = new Set<string>();
    const walk = (n: TreeNode) => {
      read.add(n.iri);
      n.children.forEach(walk);
    };
    walk(view.root);
    const streams = new Map(others.map((s) => [s.iri, s]));
    for (const start of view.starts) {
      const stream = streams.get(start.stream);
      if (stream && read.has(start.call)) shown.push(...frontier(stream));
    }
    if (w.to === w.total) {
      // A stream only an unresolved call started is on no page of talks: the last page shows it.
      const started = new Set(view.starts.filter((s) => s.placed).map((s) => s.stream));
      for (const stream of others) if (isSummariser(stream) || !started.has(stream.iri)) shown.push(...frontier(stream));
    }
    return shown;
  };
}

const e = escapeHtml;
const n = (v: number) => v.toLocaleString('en');
const plural = (count: number, word: string, words = `${word}s`) => `${n(count)} ${count === 1 ? word : words}`;
/** A count of a model term's nodes, the term with its plain name and definition (`3 runs (one prompt's work)`). */
const termPlural = (count: number, term: string) => `${n(count)} ${termHtml(term, count === 1 ? term : `${term}s`)}`;
/** Evidence a reader should see: anything less than an exact or strong link. */
const DOUBTFUL = new Set(['exact_ambiguous', 'weak_inference', 'unresolved', 'conflict']);
const CALL_KINDS = new Set(['llm.call', 'message.synthetic']);
const TOOL_KINDS = new Set(['tool', 'agent.call']);

function time(iso: string | undefined, withDate = false): string {
  if (!iso) return '';
  const shown = withDate ? iso.replace('T', ' ').slice(0, 19) : iso.slice(11, 19);
  return `<time datetime="${e(iso)}" title="${e(iso)}">${e(shown)}</time>`;
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

function self(iri: string, text = '↗'): string {
  return `<a class="self" href="${e(describeHref(iri))}" title="${e(iri)}">${e(text)}</a>`;
}

/** A text cut by the query: what is shown, and how to reach the rest. */
function clipNote(c: Clipped, iri: string): string {
  return c.length > c.text.length
    ? `<p class="clip">… ${n(c.length - c.text.length)} more characters of ${n(c.length)}: ${self(iri, 'the whole text on its page')}</p>`
    : '';
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const GIST_KEYS = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'skill'];

/** One line that says what a tool was asked to do: its command, path, pattern or first string. */
function gist(input: Clipped | undefined): string {
  if (!input) return '';
  let text: unknown;
  try {
    const fields = JSON.parse(input.text) as Record<string, unknown>;
    if (!fields || typeof fields !== 'object') return '';
    const key = GIST_KEYS.find((k) => typeof fields[k] === 'string');
    text = key ? fields[key] : Object.values(fields).find((v) => typeof v === 'string');
  } catch {
    // An input cut by the query is no JSON: its first such field, read as a JSON string.
    const match = new RegExp(`"(?:${GIST_KEYS.join('|')})"\\s*:\\s*("(?:[^"\\\\]|\\\\.)*")`).exec(input.text);
    try {
      text = match ? JSON.parse(match[1]) : undefined;
    } catch {
      text = undefined;
    }
  }
  if (typeof text !== 'string') return '';
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 100 ? `${line.slice(0, 99)}…` : line;
}

interface Tally {
  runs: number;
  calls: number;
  tools: number;
  tokens: number;
}

/** What a subtree of the document holds: its runs, calls, tools and the tokens of its calls. */
function tally(node: TreeDocument, details: Map<string, NodeDetails>, into: Tally = { runs: 0, calls: 0, tools: 0, tokens: 0 }): Tally {
  if (node.kind === 'run' && !node.unresolved) into.runs++;
  if (CALL_KINDS.has(node.kind)) {
    into.calls++;
    const t = details.get(node.iri)?.call?.tokens;
    if (t) into.tokens += t.input + t.output + t.cacheCreation + t.cacheRead;
  }
  if (TOOL_KINDS.has(node.kind)) into.tools++;
  for (const child of node.children) tally(child, details, into);
  return into;
}

class Renderer {
  private readonly anchors = new Map<string, string>();
  /** Child streams by the call that started them (the first claimant, where two claim one). */
  private readonly nested = new Map<string, { stream: TreeDocument; start: StartView }[]>();
  /** Calls that claim a stream another call already holds (a conflict in the model). */
  private readonly alsoClaims = new Map<string, { stream: TreeDocument; start: StartView }[]>();
  private readonly nestedStreams = new Set<string>();
  private readonly prompts = new Set<string>();
  private readonly rendered = new Set<string>();
  /** Per stream being drawn (sub-agents nest), its epochs' dividers and the line each falls at. */
  private readonly dividers: { epoch: string; line: number; paged: boolean; at: number; html: () => string }[][] = [];
  private readonly drawn = new Set<string>();
  private readonly window: Window;
  /** The main stream, whose epochs the window cuts (a sub-agent's stream shows whole, inside its talk). */
  private main?: string;

  constructor(private readonly d: ConversationPageData) {
    const nodes = new Map<string, TreeDocument>();
    const walk = (node: TreeDocument) => {
      if (!this.anchors.has(node.iri)) this.anchors.set(node.iri, `node-${this.anchors.size + 1}`);
      nodes.set(node.iri, node);
      const label = d.details.get(node.iri)?.labelledBy;
      if (node.kind === 'talk' && label) this.prompts.add(label);
      node.children.forEach(walk);
    };
    walk(d.document.tree);
    this.window = windowOf(d.document.tree.children[0], d.from, d.talksPerPage);
    const order = new Map([...this.anchors.keys()].map((iri, i) => [iri, i]));
    const place = (iri: string) => order.get(iri) ?? -1;
    const starts = [...d.starts].sort((x, y) => place(x.call) - place(y.call) || place(x.stream) - place(y.stream));
    for (const start of starts) {
      const stream = nodes.get(start.stream);
      if (stream?.kind !== 'stream' || !nodes.has(start.call) || start.stream === d.document.tree.iri) continue;
      const into = this.nestedStreams.has(start.stream) ? this.alsoClaims : this.nested;
      into.set(start.call, [...(into.get(start.call) ?? []), { stream, start }]);
      this.nestedStreams.add(start.stream);
    }
  }

  private attrs(node: TreeDocument, cls: string): string {
    const evidence = node.evidence ? ` data-evidence="${e(node.evidence)}"` : '';
    return `class="${cls}${node.unresolved ? ' unresolved' : ''}" data-kind="${e(node.kind)}" id="${this.anchors.get(node.iri)}"${evidence}`;
  }

  private badge(node: TreeDocument): string {
    return node.evidence && DOUBTFUL.has(node.evidence)
      ? ` <span class="evidence">${termHtml(node.evidence, node.evidence, { instead: true })}</span>`
      : '';
  }

  /** Whether a child of the main stream's epochs at `line` is on this page. */
  private inWindow(line: number): boolean {
    return line >= this.window.lo && line < this.window.hi;
  }

  /** Where a long session's talks are paged: which are shown, and links to the others. */
  private pages(): string {
    const { from, to, total, size } = this.window;
    if (total <= size) return '';
    const link = (at: number, text: string) => `<a href="?from=${at}">${text}</a>`;
    const last = total - ((total - 1) % size);
    const links = [
      from > 1 ? `${link(1, 'first')} · ${link(Math.max(1, from - size), '← previous')}` : '',
      to < total ? `${link(to + 1, 'next →')} · ${link(last, 'last')}` : '',
    ].filter(Boolean);
    return `<nav class="pages">${termHtml('talk', 'talks')} ${n(from)}–${n(to)} of ${n(total)} · ${links.join(' · ')}</nav>`;
  }

  page(): string {
    const { document: doc } = this.d;
    const [main, ...others] = doc.tree.children;
    this.main = main?.iri;
    const shown = main ? this.node(main) : '<p class="empty">The model holds no stream for this session.</p>';
    // What follows the main stream is on its last page.
    if (this.window.to < this.window.total) return `${this.header()}${this.pages()}<div class="tree">${shown}</div>${this.pages()}`;
    // Streams no call of the session started; then any a call claims but that was not reached (a loop of claims).
    // Compaction summarisers, whom no call starts either, apart from the other loose streams.
    const summaries = others.filter((s) => isSummariser(s)).map((s) => this.node(s));
    // A page of a long session holds only its talks' calls: a stream a call on another page started is that page's.
    const paged = this.window.total > this.window.size;
    const started = new Set(this.d.starts.filter((s) => s.placed).map((s) => s.stream));
    const loose = others
      .filter((s) => !this.nestedStreams.has(s.iri) && !isSummariser(s) && !(paged && started.has(s.iri)))
      .map((s) => this.node(s));
    if (!paged) loose.push(...others.filter((s) => !this.rendered.has(s.iri)).map((s) => this.node(s)));
    const body = [
      shown,
      summaries.length ? `<h2 class="loose">Compaction summaries (${summaries.length})</h2>${summaries.join('\n')}` : '',
      loose.length ? `<h2 class="loose">Sub-agent streams no call of this session started (${loose.length})</h2>${loose.join('\n')}` : '',
    ].join('\n');
    return `${this.header()}${this.pages()}<div class="tree">${body}</div>${this.pages()}${this.unresolved()}`;
  }

  private header(): string {
    const { document: doc, title, project, start, end, transcript, treeQuery, compactions } = this.d;
    const h = doc.header;
    const kinds = doc.counts.kinds as Record<string, number>;
    const count = (kind: string, word: string, words?: string) =>
      `<li data-count="${e(kind)}"><strong>${n(kinds[kind] ?? 0)}</strong> ${termHtml(kind, (kinds[kind] ?? 0) === 1 ? word : (words ?? `${word}s`))}</li>`;
    const open = doc.segments.filter((s) => s.state === 'open').length;
    const continues = h.continuesFrom.length ? ` · continues from ${h.continuesFrom.map((id) => `<code>${e(id)}</code>`).join(', ')}` : '';
    const span = start && end ? `${time(start, true)} → ${time(end, true)} UTC` : '';
    return `<h1>${e(title || h.session)}</h1>
<p class="iri">session <code>${e(h.session)}</code> · conversation <code>${e(h.conversation)}</code>${continues} · ${e(h.dialect)}</p>
${project || span ? `<p class="facts">${project ? `<span><span class="label">project</span> ${e(project)}</span>` : ''}${span ? `<span><span class="label">time</span> ${span}</span>` : ''}</p>` : ''}
<ul class="counts" id="counts">${count('talk', 'talk')}${count('run', 'run')}${count('llm.call', 'llm.call')}${count('tool', 'tool call')}<li data-count="unresolved"><strong>${n(h.entities.unresolved)}</strong> ${termHtml('unresolved')}</li>
<li class="muted">${termPlural(h.streams.main + h.streams.child, 'stream')} (${h.streams.child} sub-agent) · ${termPlural(doc.segments.length, 'segment')} (${open} open)${compactions ? ` · ${compactionsText(compactions)}` : ''}</li></ul>
<p class="formats"><a href="${e(describeHref(transcript))}">the session page</a> · <a href="?format=json">as JSON</a> (what <code>weave conversation --json</code> prints) · ${queryLink(treeQuery, 'the tree in the query editor')}</p>
${this.segments()}`;
  }

  private segments(): string {
    const { segments } = this.d.document;
    if (!segments.length) return '';
    const rows = segments
      .map(
        (s) =>
          `<tr><td>${s.segment}</td><td>${termHtml(s.state, s.state, { instead: true })}</td><td>${e(String(s.firstLine))}</td><td>${s.from ? `${time(s.from, true)} – ${time(s.until ?? s.from, true)}` : '—'}</td><td class="n">${n(s.talks)}</td></tr>`,
      )
      .join('');
    return `<details class="segments"><summary>${termHtml('segment', 'Segments')}: cut where the session was idle, policy <code>${e(segments[0].policy)}</code></summary><table class="data"><thead><tr><th>segment</th><th>state</th><th>from line</th><th>active</th><th>talks</th></tr></thead><tbody>${rows}</tbody></table></details>`;
  }

  private unresolved(): string {
    const list = this.d.document.unresolved;
    if (!list.length) return '';
    return `<section id="unresolved"><h2>Still unresolved (${list.length})</h2><table class="data"><thead><tr><th>kind</th><th>missing id</th><th>what it stands for</th></tr></thead><tbody>${list
      .map((u) => `<tr class="unresolved-item"><td>${e(u.kind)}</td><td><code>${e(u.id)}</code></td><td>${e(u.reason)}</td></tr>`)
      .join('')}</tbody></table></section>`;
  }

  private node(node: TreeDocument): string {
    if (node.kind === 'stream') return this.stream(node);
    if (node.kind === 'talk') return this.talk(node);
    if (node.kind === 'run') return this.run(node);
    if (CALL_KINDS.has(node.kind)) return this.call(node);
    if (TOOL_KINDS.has(node.kind)) return this.tool(node);
    if (node.kind === 'message.assistant') return this.say(node);
    if (node.kind === 'thinking') return this.thinking(node);
    return this.step(node);
  }

  private stream(node: TreeDocument, start?: StartView, by?: TreeDocument): string {
    if (this.rendered.has(node.iri))
      return `<p class="muted">stream <a href="#${this.anchors.get(node.iri)}">${e(node.label)}</a>, shown above</p>`;
    this.rendered.add(node.iri);
    const [name] = node.label.split('  ← ');
    const main = name === 'main' && !start;
    const t = tally(node, this.d.details);
    const head = main
      ? ''
      : isSummariser(node)
        ? `<h2 class="stream-head">compaction summariser <code>${e(name)}</code> <span class="muted">wrote the summary a compaction carried forward · ${termPlural(t.calls, 'llm.call')} · ${n(t.tokens)} tokens</span> ${self(node.iri)}</h2>`
        : `<h2 class="stream-head">sub-agent <code>${e(name)}</code> <span class="muted">${start ? `started by ${e(by ? this.toolName(by) : 'a call')} (${termHtml(start.evidence, start.evidence, { instead: true })}) · ` : ''}${termPlural(t.calls, 'llm.call')} · ${plural(t.tools, 'tool call')} · ${n(t.tokens)} tokens</span> ${self(node.iri)}</h2>`;
    // A compaction can fall inside a talk that goes on after it (its runs continue the talk in
    // progress): its divider is drawn where its line falls, among the talk's runs and calls.
    this.dividers.push(
      node.children.flatMap((epoch, i) => {
        const steps = epoch.children.filter((c) => c.kind === 'epoch.boundary' || c.kind === 'epoch.summary');
        const line = steps.find((c) => c.kind === 'epoch.boundary')?.line ?? 0;
        return epoch.kind === 'epoch' && (i > 0 || steps.length)
          ? [{ epoch: epoch.iri, line, paged: node.iri === this.main, at: line || epoch.line, html: () => this.divider(epoch, steps) }]
          : [];
      }),
    );
    const paged = node.iri === this.main;
    const epochs = node.children
      .filter((c) => c.kind === 'epoch' || !paged || this.inWindow(c.line))
      .map((c) => (c.kind === 'epoch' ? this.epoch(c, paged) : this.node(c)))
      .join('\n');
    this.dividers.pop();
    return `<section ${this.attrs(node, `stream ${main ? 'main' : 'child'}`)}>${head}${epochs}</section>`;
  }

  /** The dividers of the stream being drawn at or before `line` (a compaction may open a run), not drawn yet. */
  private dividersBefore(line: number): string {
    const pending = this.dividers.at(-1)?.filter((d) => d.line > 0 && d.line <= line && !this.drawn.has(d.epoch) && this.shows(d)) ?? [];
    for (const d of pending) this.drawn.add(d.epoch);
    return pending.map((d) => d.html()).join('');
  }

  /** Children in line order, each after any compaction that came before it. */
  private children(node: TreeDocument): string {
    return node.children.map((c) => `${this.dividersBefore(c.line)}${this.node(c)}`).join('\n');
  }

  /** Whether a divider of the stream being drawn is on this page: one of the main stream's where its line is. */
  private shows(d: { paged: boolean; at: number }): boolean {
    return !d.paged || this.inWindow(d.at);
  }

  /** An epoch, after a divider saying how the one before it ended: a compaction. Of the main stream, what the page shows of it. */
  private epoch(node: TreeDocument, paged: boolean): string {
    const boundaries = node.children.filter((c) => c.kind === 'epoch.boundary' || c.kind === 'epoch.summary');
    const own = this.dividers.at(-1)?.find((d) => d.epoch === node.iri);
    let divider = '';
    if (own && !this.drawn.has(node.iri) && this.shows(own)) {
      this.drawn.add(node.iri);
      divider = own.html();
    }
    const rest = node.children.filter((c) => !boundaries.includes(c) && (!paged || this.inWindow(c.line))).map((c) => this.node(c));
    if (paged && !divider && !rest.length) return '';
    return `<div ${this.attrs(node, 'epoch')}>${divider}${rest.join('\n')}</div>`;
  }

  private divider(epoch: TreeDocument, steps: TreeDocument[]): string {
    const boundary = steps.find((s) => s.kind === 'epoch.boundary');
    const facts = boundary ? this.d.details.get(boundary.iri) : undefined;
    const what = boundary
      ? [
          'compaction',
          facts?.compaction?.trigger,
          facts?.compaction?.preTokens !== undefined ? `${n(facts.compaction.preTokens)} tokens before` : undefined,
        ]
          .filter(Boolean)
          .map((s) => e(String(s)))
          .join(' · ')
      : `${termHtml('epoch')} ${e(epoch.label)}, begun without a compaction record`;
    const summaries = steps
      .filter((s) => s.kind === 'epoch.summary')
      .map((s) => {
        const text = this.d.details.get(s.iri)?.text;
        return `<details class="summary" data-kind="epoch.summary"><summary>the summary it left${text ? ` (${plural(text.length, 'character')})` : ''}</summary>${text ? `<div class="say">${e(text.text.trim())}</div>${clipNote(text, s.iri)}` : '<p class="muted">(no text)</p>'}</details>`;
      });
    return `<div class="compaction" role="separator"${boundary ? ` data-kind="epoch.boundary" data-iri="${e(boundary.iri)}"` : ''}><span class="what">${what}</span> ${time(facts?.time)} ${boundary ? self(boundary.iri) : ''}${summaries.join('')}</div>`;
  }

  private talk(node: TreeDocument): string {
    const facts = this.d.details.get(node.iri);
    const t = tally(node, this.d.details);
    const text = facts?.text;
    // A summariser's talk opens with the runtime's request for the summary: a compaction, no prompt.
    const request = isCompactionRequest(node);
    const prompt = request
      ? `<details class="prompt compaction-request"><summary>the runtime asked for a summary of the conversation so far</summary>${text ? `<div class="say">${e(text.text.trim())}</div>${clipNote(text, facts?.labelledBy ?? node.iri)}` : ''}</details>`
      : text
        ? `<div class="prompt">${e(text.text.trim())}</div>${clipNote(text, facts?.labelledBy ?? node.iri)}`
        : `<div class="prompt muted">${e(node.label || '(no text)')}</div>`;
    return `<section ${this.attrs(node, 'talk')}><header class="talk-head">${time(facts?.time, true)} <span class="muted">${request ? 'compaction request' : termHtml('talk')} · ${termPlural(t.runs, 'run')} · ${termPlural(t.calls, 'llm.call')} · ${plural(t.tools, 'tool call')} · ${n(t.tokens)} tokens</span>${this.badge(node)} ${self(node.iri)}</header>${prompt}${this.children(node)}</section>`;
  }

  private run(node: TreeDocument): string {
    const head = node.unresolved ? `outside any run <span class="muted">— ${e(UNRESOLVED_REASONS.run)}</span>` : runHead(node.label);
    return `<div ${this.attrs(node, 'run')}><div class="run-head">${head}${this.badge(node)} ${self(node.iri)}</div>${this.children(node)}</div>`;
  }

  private call(node: TreeDocument): string {
    const c = this.d.details.get(node.iri)?.call;
    const t = c?.tokens;
    const tokens = t
      ? `<span class="tokens" data-input="${t.input}" data-output="${t.output}" data-cache-creation="${t.cacheCreation}" data-cache-read="${t.cacheRead}" title="input · output · cache writes · cache reads">${n(t.input)} in · ${n(t.output)} out${t.cacheCreation ? ` · ${n(t.cacheCreation)} cache write` : ''}${t.cacheRead ? ` · ${n(t.cacheRead)} cache read` : ''}</span>`
      : '';
    const fragments = /^(\d+) fragments?/.exec(node.label)?.[0] ?? '';
    const head = `<div class="call-head">${time(c?.start)} <span class="model">${e(c?.model ?? node.kind)}</span> ${tokens} <span class="muted">${e(fragments)}</span>${this.badge(node)} ${self(node.iri)}</div>`;
    return `<div ${this.attrs(node, 'call')}>${head}${node.children.map((child) => this.node(child)).join('\n')}</div>`;
  }

  private toolName(node: TreeDocument): string {
    return this.d.details.get(node.iri)?.tool?.name ?? node.label.split(' → ')[0];
  }

  private tool(node: TreeDocument): string {
    const tool = this.d.details.get(node.iri)?.tool;
    const status = toolStatus(tool);
    const summary = `<summary><strong class="tool-name">${e(this.toolName(node))}</strong> <code class="gist">${e(gist(tool?.input))}</code> ${status}${tool?.durationMs !== undefined ? ` <span class="muted">${duration(tool.durationMs)}</span>` : ''}${this.badge(node)}</summary>`;
    const input = tool?.input
      ? `<div class="label">input</div><pre class="json">${e(tool.input.length > tool.input.text.length ? tool.input.text : prettyJson(tool.input.text))}</pre>${clipNote(tool.input, node.iri)}`
      : '';
    const responses = [...new Set((tool?.results ?? []).map((p) => p.response))];
    const results = responses.length
      ? responses
          .map((response, i) => {
            const parts = tool!.results.filter((p) => p.response === response);
            const label = responses.length > 1 ? `result ${i + 1} of ${responses.length}` : 'result';
            return `<div class="label">${label} ${self(response)}</div>${parts
              .map((p) =>
                p.text ? `<pre>${e(p.text.text)}</pre>${clipNote(p.text, response)}` : `<p class="muted">(${e(p.kind ?? 'no text')})</p>`,
              )
              .join('')}`;
          })
          .join('')
      : '<p class="muted">no result in this session</p>';
    const nested = (this.nested.get(node.iri) ?? []).map(({ stream, start }) => this.stream(stream, start, node));
    const claims = (this.alsoClaims.get(node.iri) ?? []).map(
      ({ stream, start }) =>
        `<p class="conflict">also claims the sub-agent stream <a href="#${this.anchors.get(stream.iri)}">${e(stream.label.split('  ← ')[0])}</a> (${e(start.evidence)})</p>`,
    );
    const more = node.children.map((c) => this.node(c)).join('\n');
    return `<details ${this.attrs(node, `tool${tool?.error ? ' failed' : ''}`)}>${summary}<div class="io">${input}${results}${self(node.iri, 'the call’s page')}</div></details>${nested.length ? `<div class="substreams">${nested.join('\n')}</div>` : ''}${claims.join('')}${more}`;
  }

  private say(node: TreeDocument): string {
    const text = this.d.details.get(node.iri)?.text;
    return `<div ${this.attrs(node, 'say')}>${text ? `${e(text.text.trim())}${clipNote(text, node.iri)}` : '<span class="muted">(no text)</span>'}</div>`;
  }

  private thinking(node: TreeDocument): string {
    const text = this.d.details.get(node.iri)?.text;
    return `<details ${this.attrs(node, 'thinking')}><summary>thinking${text ? ` <span class="muted">(${plural(text.length, 'character')})</span>` : ' <span class="muted">(not kept)</span>'}</summary>${text ? `<div class="say">${e(text.text.trim())}</div>${clipNote(text, node.iri)}` : ''}</details>`;
  }

  private step(node: TreeDocument): string {
    if (this.prompts.has(node.iri)) return ''; // the talk shows its prompt once, above its runs
    const facts = this.d.details.get(node.iri);
    const text = facts?.text;
    const line = text ? text.text.replace(/\s+/g, ' ').trim() : '';
    const short = line.length > 160 ? `${line.slice(0, 159)}…` : line;
    const body =
      text && (line.length > 160 || text.text.includes('\n'))
        ? `<details><summary>${e(short)}</summary><div class="say">${e(text.text.trim())}</div>${clipNote(text, node.iri)}</details>`
        : `<span class="text">${e(short)}</span>`;
    return `<div ${this.attrs(node, 'step')}><span class="kind">${termHtml(node.kind)}</span> ${time(facts?.time)} ${body}${this.badge(node)} ${self(node.iri, node.line ? `line ${node.line}` : '↗')}${node.children.map((c) => this.node(c)).join('')}</div>`;
  }
}

/** A run's label (`key  trigger (evidence)  rule R`, as the text tree prints it) as a heading, its terms in plain words. */
function runHead(label: string): string {
  const [key, trigger, ...rest] = label.split('  ');
  const [, cause, evidence] = /^(\w+)(?: \((\w+)\))?$/.exec(trigger ?? '') ?? [];
  const started = cause
    ? ` · started ${termHtml(cause, cause, { instead: true })}${evidence ? ` (${termHtml(evidence, evidence, { instead: true })})` : ''}`
    : trigger
      ? ` · trigger ${e(trigger)}`
      : '';
  return `${termHtml('run')} <code>${e(key)}</code>${started}${rest.map((r) => ` · ${e(r)}`).join('')}`;
}

function toolStatus(tool: ToolDetails | undefined): string {
  if (tool?.interrupted) return '<span class="status failed">interrupted</span>';
  if (tool?.error) return '<span class="status failed">error</span>';
  if (tool && !tool.results.length) return '<span class="status muted">no result</span>';
  return '';
}

export function renderConversationPage(d: ConversationPageData): string {
  const body = `${topBar('conversation')}
<main class="conversation">
${new Renderer(d).page()}
</main>`;
  return page(d.title ? `${d.title} · conversation` : `conversation ${d.document.header.session}`, 'conversation', body);
}

/** Where a session id names no session, or a prefix several: the sessions it could be. */
export function renderSessionChoice(given: string, sessions: { id: string; title?: string }[]): string {
  const list = sessions.length
    ? `<p>“${e(given)}” names ${sessions.length} sessions:</p><ul class="sessions">${sessions
        .map((s) => `<li><a href="/conversation/${e(encodeURIComponent(s.id))}">${e(s.title || s.id)}</a> <code>${e(s.id)}</code></li>`)
        .join('')}</ul>`
    : `<p class="empty">No session ${e(given)} in this store.</p>`;
  return page('conversation', 'conversation', `${topBar('conversation')}<main class="conversation"><h1>Conversation</h1>${list}</main>`);
}

/** /conversation: every session, newest first, each linking to its conversation page. */
export function renderConversationList(sessions: { id: string; title?: string; start?: string; turns: number }[]): string {
  const rows = sessions
    .map(
      (s) =>
        `<tr><td><a href="/conversation/${e(encodeURIComponent(s.id))}">${e(s.title || '(untitled)')}</a><br><code>${e(s.id)}</code></td><td class="time">${e((s.start ?? '').slice(0, 16).replace('T', ' '))}</td><td class="n">${n(s.turns)}</td></tr>`,
    )
    .join('\n');
  return page(
    'conversations',
    'conversation',
    `${topBar('conversations')}<main class="conversation"><h1>Conversations (${sessions.length})</h1><table id="conversations" class="data"><thead><tr><th>session</th><th>started</th><th>turns</th></tr></thead><tbody>${rows}</tbody></table></main>`,
  );
}
