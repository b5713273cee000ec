import { instanceIri, instancePath } from '../../../rdf/iri.ts';
import { PREFIXES, WEAVE_NS } from '../../../rdf/vocab.ts';
import type { JsonTerm } from '../../../query/table.ts';
import type { DescribedBlock, Description, Statement } from '../../messages.ts';
import { topBar } from './chrome.ts';
import { termHtml as modelTerm } from './terms.ts';
import { plainName, termOfClass } from '../../../model/plain.ts';
import { type Compactions, compactionsText, describeHref, escapeHtml, usd } from './html.ts';

/**
 * The describe page: one resource as HTML, for a person following links. A Turn shows its
 * content blocks in order (text, thinking, tool calls with their input, tool results with what
 * they answer), then every statement, then what links to it. Every IRI links onward.
 */

const RDF_TYPE = `${PREFIXES.rdf}type`;
const RDF_JSON = `${PREFIXES.rdf}JSON`;
const W = (local: string) => `${WEAVE_NS}${local}`;
/** Statements shown in a block's header or body rather than in its table. */
const BLOCK_SHOWN = new Set([
  RDF_TYPE,
  W('blockOrder'),
  W('text'),
  W('toolName'),
  W('toolInput'),
  W('hasContentBlock'),
  W('toolIsError'),
  W('toolUseRef'),
]);

export { describeHref, escapeHtml };

/** A short name: a known prefix, or the `Kind/id` part of an instance IRI. */
function shortName(iri: string): string {
  const path = instancePath(iri);
  if (path) return decodeURIComponentSafe(path);
  for (const [prefix, ns] of Object.entries(PREFIXES))
    if (iri.startsWith(ns) && iri.length > ns.length) return `${prefix}:${iri.slice(ns.length)}`;
  return iri;
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function link(iri: string, labels: Record<string, string>): string {
  const label = labels[iri];
  const title = label ? ` title="${escapeHtml(`${label} — ${iri}`)}"` : ` title="${escapeHtml(iri)}"`;
  return `<a href="${escapeHtml(describeHref(iri))}"${title}>${escapeHtml(shortName(iri))}</a>`;
}

function longText(text: string, cls = ''): string {
  const c = cls ? ` class="${cls}"` : '';
  if (text.length <= 400 && !text.includes('\n')) return `<span${c}>${escapeHtml(text)}</span>`;
  if (text.length <= 4000) return `<pre${c}>${escapeHtml(text)}</pre>`;
  return `<details><summary>${escapeHtml(text.slice(0, 160))}… (${text.length.toLocaleString('en')} characters)</summary><pre${c}>${escapeHtml(text)}</pre></details>`;
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

/** The blank nodes the page's resource names: class unions by their members, others by their statements. */
type Blanks = Pick<Description, 'unions' | 'blankNodes'>;

/** `blanks`: what the page shows of the blank nodes its resource names (one level deep). */
function termHtml(term: JsonTerm, labels: Record<string, string>, blanks: Blanks = {}): string {
  switch (term.type) {
    case 'uri':
      return link(term.value, labels);
    case 'bnode': {
      const members = blanks.unions?.[term.value];
      if (members) return `<span class="union">${members.map((m) => link(m, labels)).join(' or ')}</span>`;
      const statements = blanks.blankNodes?.[term.value];
      if (statements)
        return `<table class="statements nested">${statements.map((s) => `<tr><th>${link(s.p, labels)}</th><td>${termHtml(s.o, labels)}</td></tr>`).join('')}</table>`;
      return `<span class="bnode">_:${escapeHtml(term.value)}</span>`;
    }
    case 'triple':
      return `<span class="triple">&lt;&lt;( ${termHtml(term.value.subject, labels)} ${termHtml(term.value.predicate, labels)} ${termHtml(term.value.object, labels)} )&gt;&gt;</span>`;
    case 'literal': {
      if (term.datatype === RDF_JSON) return longText(prettyJson(term.value), 'json');
      const suffix = term['xml:lang']
        ? `<span class="lang">@${escapeHtml(term['xml:lang'])}</span>`
        : term.datatype && !term.datatype.startsWith(PREFIXES.xsd)
          ? `<span class="datatype">^^${link(term.datatype, labels)}</span>`
          : '';
      return `${longText(term.value)}${suffix}`;
    }
  }
}

/** Values shown per predicate before the rest fold away (a session lists thousands of events). */
const SHOWN_VALUES = 12;
const FOLDED_VALUES = 500;

/** `objects`: how many values a predicate has where the statements hold only its first (Description.objects). */
function statementRows(
  statements: Statement[],
  labels: Record<string, string>,
  subject?: string,
  objects: Record<string, number> = {},
  blanks: Blanks = {},
): string {
  const byPredicate = new Map<string, Statement[]>();
  for (const s of statements) byPredicate.set(s.p, [...(byPredicate.get(s.p) ?? []), s]);
  const out: string[] = [];
  for (const [p, list] of byPredicate) {
    for (const s of list.slice(0, SHOWN_VALUES))
      out.push(`<tr><th>${link(s.p, labels)}</th><td>${termHtml(s.o, labels, blanks)}</td></tr>`);
    const count = objects[p] ?? list.length;
    const head = Math.min(list.length, SHOWN_VALUES);
    if (count <= head) continue;
    const rest = list.slice(SHOWN_VALUES, SHOWN_VALUES + FOLDED_VALUES);
    const all = subject
      ? ` · <a href="/#query=${escapeHtml(encodeURIComponent(`SELECT ?o WHERE {\n  <${subject}> <${p}> ?o\n}`))}">all ${count.toLocaleString('en')} in the query editor</a>`
      : '';
    out.push(
      `<tr class="folded"><th>${link(p, labels)}</th><td><details><summary>${(count - head).toLocaleString('en')} more</summary>${rest.map((s) => `<div>${termHtml(s.o, labels)}</div>`).join('')}${count > head + rest.length ? '<div>…</div>' : ''}</details>${all}</td></tr>`,
    );
  }
  return out.join('\n');
}

const values = (statements: Statement[], p: string) => statements.filter((s) => s.p === p).map((s) => s.o);
const first = (statements: Statement[], p: string) => values(statements, p)[0]?.value as string | undefined;

function blockHtml(block: DescribedBlock, all: DescribedBlock[], labels: Record<string, string>): string {
  const types = values(block.statements, RDF_TYPE)
    .map((t) => t.value as string)
    .filter((t) => t !== W('ContentBlock'));
  const kind = types.length ? types.map((t) => labels[t] ?? shortName(t)).join(', ') : 'Content block';
  const order = first(block.statements, W('blockOrder')) ?? '?';
  const parts: string[] = [];
  const tool = first(block.statements, W('toolName'));
  if (tool) parts.push(`<p class="tool">tool <strong>${escapeHtml(tool)}</strong></p>`);
  const input = first(block.statements, W('toolInput'));
  if (input !== undefined) parts.push(`<div class="input"><span class="label">input</span>${longText(prettyJson(input), 'json')}</div>`);
  const text = first(block.statements, W('text'));
  if (text !== undefined) parts.push(`<div class="text">${text ? longText(text) : '<em>(empty)</em>'}</div>`);
  if (first(block.statements, W('toolIsError')) === 'true') parts.push('<p class="error">the tool reported an error</p>');
  for (const use of values(block.statements, W('toolUseRef')))
    parts.push(`<p class="answers">answers the tool call ${link(use.value as string, labels)}</p>`);
  for (const ref of block.incoming.filter((r) => r.p === W('toolUseRef')))
    parts.push(`<p class="answered">result in ${link(ref.owner ?? ref.s, labels)}${ref.owner ? ` (${link(ref.s, labels)})` : ''}</p>`);
  const rest = block.statements.filter((s) => !BLOCK_SHOWN.has(s.p));
  if (rest.length)
    parts.push(
      `<details class="more"><summary>${rest.length} more statements</summary><table>${statementRows(rest, labels)}</table></details>`,
    );
  const children = childBlocks(block.iri, all).map((c) => blockHtml(c, all, labels));
  if (children.length) parts.push(`<div class="nested">${children.join('\n')}</div>`);
  return `<article class="block" id="b-${escapeHtml(order)}"><header><span class="order">#${escapeHtml(order)}</span> ${escapeHtml(kind)} <a class="self" href="${escapeHtml(describeHref(block.iri))}">${escapeHtml(shortName(block.iri))}</a></header>${parts.join('\n')}</article>`;
}

function childBlocks(parent: string, all: DescribedBlock[]): DescribedBlock[] {
  return all
    .filter((b) => b.parent === parent)
    .sort((a, b) => Number(first(a.statements, W('blockOrder')) ?? 0) - Number(first(b.statements, W('blockOrder')) ?? 0));
}

/** What the session page shows of a transcript's session, above its statements. */
export interface SessionSummary {
  id: string;
  title?: string;
  project?: string;
  start?: string;
  end?: string;
  counts: [string, number][];
  compactions: Compactions;
  tokens?: { input: number; output: number; cacheCreation: number; cacheRead: number; total: number; cost: number; models: string[] };
  /** The prompts, and each compaction's request for its summary (`compaction`), no prompt anyone typed. */
  prompts: { turn: string; time: string; text?: string; compaction?: boolean }[];
  queries: { facts: string; prompts: string; usage: string };
}

function sessionHtml(s: SessionSummary): string {
  const n = (v: number) => v.toLocaleString('en');
  const span =
    s.start && s.end
      ? `${s.start.replace('T', ' ').slice(0, 19)} → ${s.end.replace('T', ' ').slice(0, 19)} UTC (${duration(s.start, s.end)})`
      : '—';
  const t = s.tokens;
  const rows: [string, string][] = [
    ['title', escapeHtml(s.title || '(untitled)')],
    ['session', `<code>${escapeHtml(s.id)}</code>`],
    ['project', escapeHtml(s.project ?? '—')],
    ['time span', escapeHtml(span)],
    ['counts', [...s.counts.map(([k, v]) => `${n(v)} ${escapeHtml(k)}`), compactionsText(s.compactions)].join(' · ')],
    [
      'tokens and cost',
      t
        ? `<span id="session-tokens" data-input="${t.input}" data-output="${t.output}" data-cache-creation="${t.cacheCreation}" data-cache-read="${t.cacheRead}" data-cost="${t.cost}">${n(t.input)} input · ${n(t.output)} output · ${n(t.cacheCreation)} cache writes · ${n(t.cacheRead)} cache reads · <strong>${usd(t.cost)}</strong></span> <span class="muted">(${escapeHtml(t.models.join(', '))}; <a href="/#query=${escapeHtml(encodeURIComponent(s.queries.usage))}">query</a>)</span>`
        : 'no API calls counted in this session',
    ],
    ['conversation', conversationLink(s.id, 'each exchange, its API calls and tool calls')],
  ];
  const prompts = s.prompts.length
    ? `<h3>Prompts <small><a href="/#query=${escapeHtml(encodeURIComponent(s.queries.prompts))}">query</a></small></h3><ol class="prompts">${s.prompts
        .map(
          (p) =>
            `<li${p.compaction ? ' class="compaction-request"' : ''}><time>${escapeHtml(p.time.replace('T', ' ').slice(0, 19))}</time>${
              p.compaction
                ? `<span class="what">compaction</span> <a href="${escapeHtml(describeHref(p.turn))}" title="${escapeHtml(p.text ?? '')}">the runtime's request for a summary of the conversation so far</a>`
                : `<a href="${escapeHtml(describeHref(p.turn))}">${escapeHtml(p.text ? (p.text.length > 160 ? `${p.text.slice(0, 159)}…` : p.text) : shortName(p.turn))}</a>`
            }</li>`,
        )
        .join('')}</ol>`
    : '';
  return `<section class="session-summary"><h2>Session <small><a href="/#query=${escapeHtml(encodeURIComponent(s.queries.facts))}">query</a></small></h2><dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>${prompts}</section>`;
}

/** A session's page: the describe page of its main transcript. */
function sessionPage(id: string, soul = 'local'): string {
  return instanceIri(soul, 'Transcript', id).slice(1, -1);
}

/** The conversation page of a session (/conversation/<id>). */
function conversationLink(session: string, text: string): string {
  return `<a class="conversation-link" href="/conversation/${escapeHtml(encodeURIComponent(session))}">${escapeHtml(text)}</a>`;
}

function duration(from: string, to: string): string {
  const minutes = Math.round((Date.parse(to) - Date.parse(from)) / 60_000);
  if (!Number.isFinite(minutes)) return '?';
  const days = Math.floor(minutes / 1440);
  const hours = Math.floor((minutes % 1440) / 60);
  return `${days ? `${days}d ` : ''}${hours}h ${String(minutes % 60).padStart(2, '0')}m`;
}

const TURN_ROLE: Record<string, string> = { [W('UserTurn')]: 'user', [W('AssistantTurn')]: 'assistant' };

export function renderDescribePage(d: Description, soul?: string, session?: SessionSummary): string {
  const { labels } = d;
  const title = session?.title ? `${session.title} · ${shortName(d.iri)}` : shortName(d.iri);
  // A class that carries a model term says it in plain words too: weave:LlmCall (API call).
  const types = values(d.statements, RDF_TYPE).map((t) => {
    const type = t.value as string;
    const term = type.startsWith(WEAVE_NS) ? termOfClass(type.slice(WEAVE_NS.length)) : undefined;
    return `${link(type, labels)}${term && plainName(term) ? ` (${modelTerm(term, term, { instead: true })})` : ''}`;
  });
  const facts: string[] = [];
  // A turn's role is its class's (weave:turnRole), unless the turn states one.
  const role =
    first(d.statements, W('role')) ??
    values(d.statements, RDF_TYPE)
      .map((t) => TURN_ROLE[t.value as string])
      .find(Boolean);
  if (role) facts.push(`<span><span class="label">role</span> ${escapeHtml(role)}</span>`);
  for (const [p, label] of [
    [W('timestamp'), 'time'],
    [W('model'), 'model'],
  ] as const) {
    const v = first(d.statements, p);
    if (v) facts.push(`<span><span class="label">${label}</span> ${escapeHtml(v)}</span>`);
  }
  const blocks = childBlocks(d.iri, d.blocks);
  const shown = d.statements.filter((s) => s.p !== W('hasContentBlock') || !blocks.length);
  const query = `SELECT ?p ?o WHERE {\n  <${d.iri}> ?p ?o\n}`;
  const empty = !d.statements.length && !d.incoming.length;
  // A session node (not only its transcript) links to its conversation too; a turn, a block, a
  // call, a tool or a run to its session's page and its conversation.
  const sessionNode = values(d.statements, RDF_TYPE).some((t) => t.value === W('Session'))
    ? first(d.statements, `${PREFIXES.dcterms}identifier`)
    : undefined;
  const within = session || sessionNode ? [] : (d.sessions ?? []);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Weave</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/weave.css">
<link rel="alternate" type="text/turtle" href="${escapeHtml(describeHref(d.iri, 'turtle'))}">
<link rel="alternate" type="application/ld+json" href="${escapeHtml(describeHref(d.iri, 'jsonld'))}">
</head><body class="describe">
${topBar(soul ? `describe · soul ${soul}` : 'describe')}
<main>
<h1>${escapeHtml(session?.title || shortName(d.iri))}</h1>
<p class="iri"><code>${escapeHtml(d.iri)}</code></p>
${types.length ? `<p class="types">${types.join(' · ')}</p>` : ''}
${facts.length ? `<p class="facts">${facts.join(' ')}</p>` : ''}
<p class="formats">as <a href="${escapeHtml(describeHref(d.iri, 'turtle'))}">Turtle</a> · <a href="${escapeHtml(describeHref(d.iri, 'jsonld'))}">JSON-LD</a> · <a href="${escapeHtml(describeHref(d.iri, 'ntriples'))}">N-Triples</a> · <a href="/#query=${escapeHtml(encodeURIComponent(query))}">in the query editor</a>${sessionNode ? ` · ${conversationLink(sessionNode, 'its conversation')}` : ''}</p>
${within.map((id) => `<p class="in-session">in session <a class="session-link" href="${escapeHtml(describeHref(sessionPage(id, soul)))}">${escapeHtml(id)}</a> · ${conversationLink(id, 'its conversation')}</p>`).join('\n')}
${empty ? '<p class="empty">The store says nothing about this IRI.</p>' : ''}
${session ? sessionHtml(session) : ''}
${blocks.length ? `<section class="content"><h2>Content</h2>${blocks.map((b) => blockHtml(b, d.blocks, labels)).join('\n')}</section>` : ''}
${shown.length ? `<section><h2>Statements</h2><table class="statements">${statementRows(shown, labels, d.iri, d.objects, d)}</table></section>` : ''}
${d.incoming.length ? `<section><h2>Linked from</h2><table class="statements">${d.incoming.map((r) => `<tr><td>${link(r.s, labels)}</td><th>${link(r.p, labels)}</th></tr>`).join('\n')}</table>${d.incomingTruncated ? `<p class="note">The first ${d.incoming.length} links only.</p>` : ''}</section>` : ''}
${d.graphs.length ? `<section><h2>In graphs</h2><ul class="graphs">${d.graphs.map((g) => `<li>${link(g, labels)}</li>`).join('')}</ul></section>` : ''}
</main></body></html>
`;
}
