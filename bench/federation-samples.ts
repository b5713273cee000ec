/**
 * `node --import tsx bench/federation-samples.ts STORE [SESSION SESSION]`: writes
 * fixtures/federation/pool.ttl and soul.trig from the turns of two sessions of a store (by
 * default the two of fixtures/server), so every turn they name is one the store holds and their
 * joins have rows. test/federation/federation.test.ts checks the files are what this writes.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ravelTurnIri } from '../src/align/ravel.ts';
import { runQuery } from '../src/query/run.ts';
import type { JsonResults } from '../src/query/table.ts';
import { openStore, type OxStore } from '../src/store/store.ts';

export const SAMPLE_SESSIONS = ['33333333-3333-4333-8333-333333333333', '44444444-4444-4444-8444-444444444444'];
export const POOL_FILE = new URL('../fixtures/federation/pool.ttl', import.meta.url);
export const SOUL_FILE = new URL('../fixtures/federation/soul.trig', import.meta.url);

interface Turn {
  iri: string;
  id: string;
  user: boolean;
  at: Date;
}

interface Session {
  id: string;
  title: string;
  /** The first prompt and the last answer: a memory rests on both, a moment is made from the answer. */
  prompt: Turn;
  answer: Turn;
  answerText: string;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The two files, as text, from `sessions` of `store`. */
export function federationSamples(store: OxStore, sessions = SAMPLE_SESSIONS): { pool: string; soul: string } {
  const [a, b] = sessions.map((s) => session(store, s));
  return { pool: pool(a, b), soul: soul([a, b]) };
}

function session(store: OxStore, id: string): Session {
  const rows = select(
    store,
    `SELECT ?turn ?id ?cls ?at ?title ?text WHERE {
      ?transcript weave:sessionId ${JSON.stringify(id)} ; weave:hasEvent ?turn ; weave:title ?title .
      ?turn a weave:Turn, ?cls ; weave:eventId ?id ; weave:timestamp ?at .
      FILTER(?cls IN (weave:UserTurn, weave:AssistantTurn))
      OPTIONAL { ?turn weave:hasContentBlock ?block . ?block a weave:TextBlock ; weave:text ?text }
    } ORDER BY ?at ?turn`,
  );
  const turns: Turn[] = rows.map((r) => ({ iri: r.turn, id: r.id, user: r.cls.endsWith('#UserTurn'), at: new Date(r.at) }));
  const prompt = turns.find((t) => t.user);
  const answer = turns.findLast((t) => !t.user);
  if (!prompt || !answer) throw new Error(`session ${id} has no prompt and answer in this store`);
  const answerText = rows.findLast((r) => r.turn === answer.iri && r.text)?.text ?? '';
  return { id, title: rows[0].title, prompt, answer, answerText };
}

function select(store: OxStore, query: string): Record<string, string>[] {
  const json = JSON.parse(runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string) as JsonResults;
  return (json.results?.bindings ?? []).map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, String(v.value)])));
}

/** xsd:dateTime text, with no milliseconds when there are none. */
const time = (ms: number) => `"${new Date(ms).toISOString().replace('.000Z', 'Z')}"^^xsd:dateTime`;
const ravel = (turn: Turn) => `<${ravelTurnIri(turn.iri)}>`;
const text = (s: string) => JSON.stringify(s);

function pool(a: Session, b: Session): string {
  return `# A Pool sample: three moments (copia:Moment, from repolex-ai/git-lex-kit-copia ontology/copia/copia.ttl)
# beside turns of a Weave store. Pool and ravel never share a store; they join by the
# xsd:dateTime time anchor and by prov edges naming ravel Turn IRIs (ravel src/soul.rs). The
# moment IRIs are this sample's own: Pool's ontology names no IRI form for them, and no join
# here relies on one. Written by bench/federation-samples.ts from a store of fixtures/server:
# run it again rather than edit this file.

@prefix copia: <https://repolex.ai/ontology/kit/copia/> .
@prefix prov:  <http://www.w3.org/ns/prov#> .
@prefix xsd:   <http://www.w3.org/2001/XMLSchema#> .

# Rendered 2 s after the last answer ${a.answer.id} of session ${a.id}, from that turn.
<https://repolex.ai/pool/Moment/m-0001> a copia:Moment ;
    copia:momentId "m-0001" ;
    copia:origin "conversational" ;
    copia:sessionId ${text(a.id)} ;
    copia:sourceUuids ${text(a.answer.id)} ;
    copia:renderTimestamp ${time(a.answer.at.getTime() + 2000)} ;
    copia:caption ${text(a.answerText)} ;
    prov:wasDerivedFrom ${ravel(a.answer)} .

# Shared half a second after the prompt ${b.prompt.id} of session ${b.id}; no prov edge: it joins by time only.
<https://repolex.ai/pool/Moment/m-0002> a copia:Moment ;
    copia:momentId "m-0002" ;
    copia:origin "share" ;
    copia:sessionId ${text(b.id)} ;
    copia:sharedAt ${time(b.prompt.at.getTime() + 500)} .

# Thirty days before the first prompt: it joins nothing.
<https://repolex.ai/pool/Moment/m-0003> a copia:Moment ;
    copia:momentId "m-0003" ;
    copia:origin "nocturne" ;
    copia:renderTimestamp ${time(a.prompt.at.getTime() - 30 * DAY)} .
`;
}

function soul(sessions: Session[]): string {
  const memories = sessions.flatMap((s) => {
    const id = `m${createHash('sha1').update(s.id).digest('hex').slice(0, 16)}`;
    const hour = Math.floor(s.prompt.at.getTime() / HOUR);
    return [
      `    <https://repolex.ai/ravel/Memory/${id}> a ravel:Memory ;
        ravel:memoryId "${id}" ;
        ravel:memoryLevel 0 ;
        ravel:memoryText ${text(`Asked: ${s.title} Answered: ${s.answerText}`)} ;
        ravel:windowStart ${time(s.prompt.at.getTime())} ;
        ravel:windowEnd ${time(s.answer.at.getTime())} ;
        ravel:fromTurn ${ravel(s.prompt)}, ${ravel(s.answer)} ;
        ravel:memoryModel "claude-haiku-4-5" .`,
      `    <https://repolex.ai/ravel/Memory/w1-${hour}> a ravel:Memory ;
        ravel:memoryId "w1-${hour}" ;
        ravel:memoryLevel 1 ;
        ravel:memoryText ${text(`The hour of: ${s.title}`)} ;
        ravel:windowStart ${time(hour * HOUR)} ;
        ravel:windowEnd ${time((hour + 1) * HOUR)} ;
        ravel:summarizes <https://repolex.ai/ravel/Memory/${id}> ;
        ravel:memoryModel "claude-haiku-4-5" .`,
    ];
  });
  return `# A Soul sample: the memory index ravel writes into its memory-v1 graph (repolex-ai/ravel,
# ontology/ravel/ravel.ttl, ravel:Memory), for turns of a Weave store. Level-0 memories rest on
# turns (ravel:fromTurn, ravel's Turn IRIs); level-1 summaries cover one-hour windows. Ids take
# ravel's shapes ('m' + a hash, 'w<level>-<hours since 1970>'); the texts are made from the turns.
# Written by bench/federation-samples.ts from a store of fixtures/server: run it again rather than
# edit this file. test/federation/ serves it from an endpoint of its own.

@prefix ravel: <https://repolex.ai/ontology/ravel/> .
@prefix xsd:   <http://www.w3.org/2001/XMLSchema#> .

<https://repolex.ai/ravel/NamedGraph/memory-v1> {
${memories.join('\n\n')}
}
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [dir, ...sessions] = process.argv.slice(2);
  if (!dir) throw new Error('usage: node --import tsx bench/federation-samples.ts STORE [SESSION SESSION]');
  const { store } = await openStore(dir);
  const { pool: poolText, soul: soulText } = federationSamples(store, sessions.length ? sessions : SAMPLE_SESSIONS);
  await writeFile(POOL_FILE, poolText);
  await writeFile(SOUL_FILE, soulText);
}
