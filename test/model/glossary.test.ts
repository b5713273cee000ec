import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { CLAUDE_CODE_GLOSSARY } from '../../src/dialect/claude-code/glossary.ts';
import type { FactObserver } from '../../src/dialect/dialect.ts';
import { nativeName } from '../../src/dialect/glossary.ts';
import type { Triple } from '../../src/rdf/terms.ts';
import { a, WEAVE_NS } from '../../src/rdf/vocab.ts';
import { ingest } from '../../src/ingest.ts';
import { conversationModel } from '../../src/model/observer.ts';
import { MODEL_TTL, renderModelOntology } from '../../src/model/ontology.ts';
import { MODEL_TERMS, ONTOLOGY_TERMS } from '../../src/model/vocabulary.ts';
import { FIXTURES, ingested, type Ingested } from './helpers.ts';

/**
 * The glossary contract: every name the model can put on the graph has an entry; a runtime name
 * says where it appears; a derived name says what it is; and what the glossary claims to read,
 * the fixtures show in the graph.
 */

const glossary = CLAUDE_CODE_GLOSSARY;
const entries = new Map(glossary.terms.map((t) => [t.model, t]));
const weaveName = (term: string) => term.slice(1 + WEAVE_NS.length, -1);

test('every model term has one glossary entry, and every entry is a model term', () => {
  assert.equal(entries.size, glossary.terms.length, 'a term is listed twice');
  assert.deepEqual(
    MODEL_TERMS.map((t) => t.term).filter((t) => !entries.has(t)),
    [],
  );
  const terms = new Set(MODEL_TERMS.map((t) => t.term));
  assert.deepEqual(
    glossary.terms.map((t) => t.model).filter((t) => !terms.has(t)),
    [],
  );
});

test('a runtime name says where it appears; a derived term has a note and no location', () => {
  for (const t of glossary.terms) {
    if (t.runtime !== undefined) assert.ok(t.runtime && t.where, `${t.model}: a runtime name needs a place`);
    else {
      assert.equal(t.where, undefined, `${t.model}: derived, so no place in the records`);
      assert.ok(t.note, `${t.model}: derived, so it needs a note`);
    }
  }
  assert.ok(glossary.terms.some((t) => t.runtime === undefined) && glossary.terms.some((t) => t.runtime !== undefined));
});

/** The Claude Code glossary of the specification (`<repo>/../shared/spec`), where it is checked out. */
const SPEC_GLOSSARY = fileURLToPath(new URL('../shared/spec/000_88a0bb531ab5e3c6.txt', new URL('../..', import.meta.url)));

/** The model terms of a table of the spec: the first word of each row between its heading and the next. */
function specTerms(text: string, heading: string, next: string): string[] {
  const from = text.indexOf(`\n${heading}\n`);
  const to = text.indexOf(`\n${next}\n`, from);
  assert.ok(from >= 0 && to > from, `the spec has "${heading}" then "${next}"`);
  return text
    .slice(from + heading.length + 2, to)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split(' ')[0]);
}

const noSpec = !existsSync(SPEC_GLOSSARY) && 'no ../shared/spec here';

test("the glossary is the spec's two tables, plus the terms this project adds", { skip: noSpec }, () => {
  const text = readFileSync(SPEC_GLOSSARY, 'utf8');
  // A row is a model term, its runtime name, where and a note, run together; the derived table
  // follows its one paragraph of prose.
  const named = specTerms(text, 'model Claude Code where note', 'Derived by this project');
  const derived = specTerms(text, 'model what it is', 'What Claude Code records and the model does not carry');
  const stated = /\n(\d+) terms: (\d+) that Claude Code names, (\d+) this project derives\./.exec(text);
  const counted = [named.length + derived.length, named.length, derived.length];
  assert.deepEqual(stated?.slice(1).map(Number), counted, 'the spec counts its own tables');
  // This project names the summariser's file (produces) and derives the step and containment.
  const added = { named: ['produces'], derived: ['step', 'within'] };
  const ours = (isDerived: boolean) =>
    glossary.terms
      .filter((t) => (t.runtime === undefined) === isDerived)
      .map((t) => t.model)
      .sort();
  assert.deepEqual(ours(false), [...named, ...added.named].sort());
  assert.deepEqual(ours(true), [...derived, ...added.derived].sort());
});

test('native names fall back to the model term', () => {
  assert.equal(nativeName(glossary, 'talk'), 'talk');
  assert.equal(nativeName(glossary, 'run'), 'promptId');
  assert.equal(nativeName(glossary, 'llm.call'), 'message.id');
  assert.equal(nativeName(glossary, 'no.such.term'), 'no.such.term');
  assert.equal(nativeName(undefined, 'run'), 'run');
});

test('ontology/parts/model.ttl is rendered from the vocabulary and the glossary (npx tsx src/model/ontology.ts)', async () => {
  assert.equal(await readFile(MODEL_TTL, 'utf8'), renderModelOntology());
});

describe('the model on every fixture', () => {
  const derived: Triple[] = [];
  let dir: string;
  let g: Ingested;
  before(async () => {
    // The model's own triples, apart from the spine's.
    dir = await mkdtemp(join(tmpdir(), 'weave-glossary-'));
    await ingest([FIXTURES], {
      storeDir: dir,
      soul: 'test',
      observers: (session, soul) =>
        conversationModel(session, soul).map(
          (o): FactObserver => ({
            record: o.record.bind(o),
            finish: () => {
              const out = [...(o.finish?.() ?? [])];
              derived.push(...out);
              return out;
            },
          }),
        ),
    });
    g = await ingested([FIXTURES]);
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await g.close();
  });

  test('every class and individual the model emits is a glossary term', () => {
    const termOf = new Map(MODEL_TERMS.flatMap((t) => t.iris.map((iri) => [iri, t.term] as [string, string])));
    const ownNames = new Set(ONTOLOGY_TERMS.map((o) => o.name));
    const used = new Set<string>();
    for (const t of derived) {
      if (t.p === a && t.o.startsWith(`<${WEAVE_NS}`)) used.add(weaveName(t.o));
      if ((t.p === `<${WEAVE_NS}evidence>` || t.p === `<${WEAVE_NS}trigger>`) && t.o.startsWith(`<${WEAVE_NS}`)) used.add(weaveName(t.o));
    }
    assert.ok(used.size > 30, `${used.size} classes and individuals`);
    // ModelNode only groups the others; a cross-session reference is the records layer's note of a
    // link for the pass across sessions to state (a conversation going on from another session).
    const structural = new Set(['ModelNode', 'CrossSessionReference']);
    assert.deepEqual([...used].filter((name) => !termOf.has(name) && !structural.has(name)).sort(), []);
    assert.ok([...used].every((name) => ownNames.has(name) || structural.has(name)));
    for (const name of used) if (termOf.has(name)) assert.ok(entries.has(termOf.get(name)!), name);
  });

  test('every predicate the model emits is in its vocabulary', () => {
    const known = new Set(ONTOLOGY_TERMS.map((o) => o.name));
    const predicates = new Set(
      derived
        .map((t) => t.p)
        .filter((p) => p.startsWith(`<${WEAVE_NS}`))
        .map(weaveName),
    );
    assert.deepEqual([...predicates].filter((p) => !known.has(p)).sort(), []);
  });

  test('every term the glossary marks as read shows in a fixture graph', () => {
    const shows = (name: string) =>
      g.select(`SELECT ?s WHERE { GRAPH ?g { { ?s weave:${name} ?o } UNION { ?s ?p weave:${name} } }
        FILTER(?g != <https://repolex.ai/ontology/weave>) } LIMIT 1`).length > 0;
    const missing: string[] = [];
    for (const term of MODEL_TERMS) {
      const entry = entries.get(term.term)!;
      if (!entry.read) continue;
      // Content states are stated by the records layer on each stored text (its own fixtures and
      // tests cover them; truncated needs a text over the default 128 KiB limit): here, that the
      // ontology declares them with the model's notation.
      if (term.category === 'content') {
        const declared = g.select(
          `SELECT ?c WHERE { GRAPH <https://repolex.ai/ontology/weave> { weave:${term.iris[0]} a weave:ContentState } }`,
        );
        if (!declared.length) missing.push(term.term);
        continue;
      }
      if (!shows(term.iris[0])) missing.push(term.term);
    }
    assert.deepEqual(missing, []);
    for (const e of glossary.terms.filter((t) => !t.read)) assert.ok(!shows(modelIri(e.model)), `${e.model} is marked unread but shows`);
  });

  test('what the glossary says of a thinking signature is what the default policy stores', () => {
    // The fixtures' two signed thinking blocks: run-through-attachments' a005 ("EpYBCk") and
    // split-call's b002 ("EqQBCk"), 6 bytes each.
    assert.equal(
      glossary.notCarried.find((n) => n.field === 'thinking.signature')?.why,
      'a provider verifies it; nobody can read it (omitted by default: its length and SHA-256 stay on the block; --content signature=keep stores it as weave:signature)',
    );
    assert.deepEqual(g.select('SELECT ?b WHERE { ?b weave:signature ?s }'), []);
    assert.deepEqual(
      g.select(`SELECT ?b ?state ?length ?sha WHERE { ?b a weave:ThinkingBlock ; weave:hasContent ?c .
        ?c weave:contentOf weave:signature ; weave:contentState ?state ; weave:byteLength ?length ; weave:sha256 ?sha } ORDER BY ?b`),
      [
        {
          b: 'ContentBlock/10000000-0000-4000-8000-00000000a005/0',
          state: 'weave:ContentOmitted',
          length: '6',
          sha: '37fdd0f2326998abc02f1915d953c41f52e786695f783462b8a3b3d9887dfa53',
        },
        {
          b: 'ContentBlock/20000000-0000-4000-8000-00000000b002/0',
          state: 'weave:ContentOmitted',
          length: '6',
          sha: '75c4da2f2ccd849aec3bf3e98b91174d16a94b7fe4f6f2b894d81e571560ea6f',
        },
      ],
    );
  });

  test('SPARQL over the ontology answers what Claude Code calls a term', () => {
    const ask = (term: string) =>
      g
        .select(`SELECT ?name WHERE { ?t skos:notation "${term}" ; weave:nativeTerm ?m .
      ?m weave:dialect "claude-code/1" ; weave:runtimeName ?name }`)
        .map((r) => r.name);
    assert.deepEqual(ask('llm.call'), ['message.id']);
    assert.deepEqual(ask('talk'), []);
    assert.deepEqual(
      g.select(`SELECT ?t WHERE { ?t skos:notation "agent.call" }`).map((r) => r.t),
      ['weave:AgentCall'],
    );
  });
});

function modelIri(term: string): string {
  return MODEL_TERMS.find((t) => t.term === term)!.iris[0];
}
