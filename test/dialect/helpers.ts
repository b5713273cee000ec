import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLine } from '../../src/dialect/claude-code/read.ts';
import type { ContentPolicy } from '../../src/emit/content.ts';
import { instanceIri } from '../../src/rdf/iri.ts';
import { emitSpine, eventIri } from '../../src/dialect/claude-code/emit/spine.ts';
import type { Triple } from '../../src/rdf/terms.ts';
import { FIXTURES } from '../helpers.ts';

export const RECORDS = join(FIXTURES, 'records');
export const PROJECT = join(RECORDS, '-home-ada-records-demo');

const PREFIXES: [string, string][] = [
  ['<https://repolex.ai/ontology/weave#', 'weave:'],
  ['<http://www.w3.org/ns/prov#', 'prov:'],
  ['<urn:soul:local:Weave/', ':'],
];

/** One N-Triples term in a short form the tests can be read in: `weave:x`, `:Kind/id`, `7`, `json:{…}`. */
export function short(term: string): string {
  if (term === '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>') return 'a';
  for (const [long, prefix] of PREFIXES) if (term.startsWith(long)) return prefix + term.slice(long.length, -1);
  const typed = /^"(.*)"\^\^<(.*)>$/s.exec(term);
  if (typed) {
    const [, value, datatype] = typed;
    if (datatype.endsWith('#integer') || datatype.endsWith('#decimal') || datatype.endsWith('#boolean')) return value;
    if (datatype.endsWith('#JSON')) return `json:${JSON.parse(`"${value}"`)}`;
    if (datatype.endsWith('#dateTime')) return `${value}^^dateTime`;
  }
  return term;
}

/** Predicates of the envelope every record shares: the spine tests cover them. */
const ENVELOPE = new Set([
  'weave:hasEvent',
  'weave:recordType',
  'weave:sourceLine',
  'weave:sourceOffset',
  'weave:eventId',
  'weave:timestamp',
  'weave:cwd',
  'weave:cliVersion',
  'weave:gitBranch',
  'weave:userType',
  'weave:entrypoint',
  'weave:recordSessionId',
  'weave:isSidechain',
  'weave:parentEventId',
  'weave:promptId',
]);

export interface Emitted {
  /** The record's own triples, envelope left out, short and sorted. */
  triples: string[];
  /** References to resolve, short: `subject predicate space:id`, and `| literal` where the id is stated if it does not resolve. */
  references: string[];
}

/** The triples line `n` of a fixture file emits (the envelope left out). */
export function emitted(file: string, n: number, session: string, content?: ContentPolicy): Emitted {
  const text = readFileSync(join(PROJECT, file), 'utf8').split('\n')[n - 1];
  const read = readLine({ lineNo: n, offset: 0, byteLength: Buffer.byteLength(text), text, terminated: true });
  assert.ok(read.kind === 'record', `line ${n} of ${file} is a record`);
  const event = eventIri('local', read.record, session, n);
  const transcript = instanceIri('local', 'Transcript', session);
  const out = emitSpine(read, event, { soul: 'local', transcript, lineNo: n, offset: 0, session, content });
  const line = (t: Triple) => `${short(t.s)} ${short(t.p)} ${short(t.o)}`;
  return {
    triples: out.triples
      .filter((t) => !ENVELOPE.has(short(t.p)) && !(t.p.endsWith('#type>') && t.o.endsWith('#Event>')))
      .map(line)
      .sort(),
    references: out.references
      .filter((r) => !r.predicate.endsWith('#parentEvent>'))
      .map((r) => `${short(r.subject)} ${short(r.predicate)} ${r.space}:${r.id}${r.literal ? ` | ${short(r.literal)}` : ''}`)
      .sort(),
  };
}

/**
 * The triples of one Content node, short: `subject hasContent node` and the node's own. `state`
 * is the local name after `Content` (Available, Truncated, HashOnly, …).
 */
export function contentOf(
  subject: string,
  property: string,
  state: string,
  bytes: number | undefined,
  pointer: string,
  extra: { sha256?: string; stored?: number; index?: number } = {},
): string[] {
  const node = `:Content/${subject.slice(1)}/${property}${extra.index === undefined ? '' : `/${extra.index}`}`;
  return [
    `${subject} weave:hasContent ${node}`,
    `${node} a weave:Content`,
    `${node} weave:contentOf weave:${property}`,
    `${node} weave:contentState weave:Content${state}`,
    `${node} weave:jsonPointer ${JSON.stringify(pointer)}`,
    ...(bytes === undefined ? [] : [`${node} weave:byteLength ${bytes}`]),
    ...(extra.sha256 ? [`${node} weave:sha256 "${extra.sha256}"`] : []),
    ...(extra.stored === undefined ? [] : [`${node} weave:storedByteLength ${extra.stored}`]),
  ];
}

/** A text stored whole: its triple and its Content node. */
export function available(subject: string, property: string, literal: string, bytes: number, pointer: string, index?: number): string[] {
  return [`${subject} weave:${property} ${literal}`, ...contentOf(subject, property, 'Available', bytes, pointer, { index })];
}

/**
 * A text stored whole where its dialect's conventions put it (a message's own blocks, a tool's
 * structured result, a progress record's data): the value alone, no Content node
 * (queries/stored-texts.rq answers its state, length and pointer).
 */
export function whole(subject: string, property: string, literal: string): string[] {
  return [`${subject} weave:${property} ${literal}`];
}

/** A snapshot's backup node: one per session and what the entry says (`info` as the fixture has it). */
export function fileBackup(session: string, path: string, info: unknown): string {
  return `:FileBackup/${session}/${createHash('sha1')
    .update(`${path}\n${JSON.stringify(info)}`)
    .digest('hex')
    .slice(0, 20)}`;
}

export function sorted(...groups: (string | string[])[]): string[] {
  return groups.flat().sort();
}
