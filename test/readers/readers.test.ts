import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { sliceCodePoints } from '../../src/readers/text.ts';
import type { OxStore } from '../../src/store/store.ts';
import { removeDir, select } from '../helpers.ts';
import { b0, BLOCK, detectedStore, e3, f0, readerGraphFile, SESSIONS, t7, TURN } from './helpers.ts';

/** An instance IRI after its soul: a finding's id is the same under every soul. */
const soulless = (instance: string) => instance.replace(/^urn:soul:[^:]+:Weave\//, '');

let dir: string;
let store: OxStore;
before(async () => {
  ({ dir, store } = await detectedStore());
});
after(() => removeDir(dir));

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/** Findings of one reader: annotation, turn, block, source kind, span and quote. */
function findings(reader: string, extra = '', vars = '') {
  return select(
    store,
    `SELECT ?annotation ?turn ?block ?kind ?start ?end ?exact ?pointer ?time ${vars} WHERE {
    ?annotation weave:eventType "${reader}" ; weave:sourceKind ?kind ; oa:hasTarget ?target ; oa:hasBody ?body .
    OPTIONAL { ?annotation prov:generatedAtTime ?time }
    ?target weave:atEvent ?turn ; weave:atBlock ?block ; oa:hasSelector ?p .
    ?p a oa:TextPositionSelector ; oa:start ?start ; oa:end ?end .
    OPTIONAL { ?target oa:hasSelector ?q . ?q a oa:TextQuoteSelector ; oa:exact ?exact }
    OPTIONAL { ?target weave:inputPointer ?pointer }
    ${extra}
  } ORDER BY ?time ?turn ?block xsd:integer(?start)`,
  );
}

test('emojikey/harvest: every key of the session, in authored text, tool results and the set_emojikey input', () => {
  const rows = findings(
    'emojikey/harvest',
    `?body weave:generation ?generation ; weave:quoted ?quoted .
    OPTIONAL { ?body weave:keyPeriod ?period }
    FILTER(STRSTARTS(STR(?turn), "${TURN(e3(0)).slice(0, -2)}"))`,
    '?generation ?quoted ?period',
  );
  assert.deepEqual(
    rows.map((r) => [r.turn.slice(-2), r.kind, r.start, r.end, r.generation, r.quoted, r.period ?? '', r.pointer ?? '']),
    [
      // initialize_conversation: three templates of the preamble (quoted), then two aggregated keys.
      ['03', 'tool_result', '458', '469', 'v3-numeric', 'true', '', ''],
      ['03', 'tool_result', '490', '508', 'v3-numeric', 'true', '', ''],
      ['03', 'tool_result', '528', '556', 'v3-numeric', 'true', '', ''],
      ['03', 'tool_result', '630', '686', 'v3-numeric', 'false', 'lifetime', ''],
      ['03', 'tool_result', '694', '718', 'v3-numeric', 'false', '7d', ''],
      // The assistant's own text: after "⚖️ " the span counts code points, not UTF-16 units (123).
      ['04', 'authored', '58', '113', 'v3-numeric', 'false', '', ''],
      // set_emojikey through the MCP server "emojikey": the partial ME~YOU key.
      ['05', 'tool_input', '0', '43', 'v3-numeric', 'false', '', '/emojikey'],
      // get_emojikey_history through another server name: an arrow key and a 60-day summary.
      ['08', 'tool_result', '21', '73', 'v3-arrow', 'false', '', ''],
      ['08', 'tool_result', '88', '150', 'v3-summary', 'false', '60d', ''],
      // A v1 free string, recognisable only as set_emojikey input.
      ['09', 'tool_input', '0', '5', 'v1', 'false', '', '/emojikey'],
    ],
  );
  assert.equal(rows[6].block, BLOCK(e3(5), 0));
  assert.equal(rows[0].block, BLOCK(e3(3), 0, 0), 'a result with list content: the inner text block');
});

test('emojikey/harvest: one fixture turn per key form, each read as its generation', () => {
  const rows = select(
    store,
    `SELECT ?turn ?generation ?joiner ?period ?count ?legs WHERE {
    ?a weave:eventType "emojikey/harvest" ; oa:hasTarget/weave:atEvent ?turn ; oa:hasBody ?b .
    ?b weave:generation ?generation ; weave:legCount ?legs .
    OPTIONAL { ?b weave:joiner ?joiner } OPTIONAL { ?b weave:keyPeriod ?period } OPTIONAL { ?b weave:superkeyCount ?count }
    FILTER(STRSTARTS(STR(?turn), "urn:soul:local:Weave/Turn/f0000000")) } ORDER BY ?turn`,
  );
  assert.deepEqual(
    rows.map((r) => [r.turn.slice(-2), r.generation, r.joiner ?? '', r.period ?? '', r.count ?? '', r.legs]),
    [
      ['02', 'v2', '', '', '', '9'],
      ['03', 'v2-superkey', '', '', '7', '9'],
      ['04', 'v3-numeric', '', '', '', '1'], // a single leg
      ['05', 'v3-numeric', '~', '', '', '2'], // ME ~ YOU, no CONTENT
      ['06', 'v3-numeric', '~~', '', '', '4'],
      ['07', 'v3-summary', '~~', '60d', '', '5'],
      ['08', 'v3-superkey', '|', '', '7', '5'],
      ['09', 'v3-arrow', '~', '', '', '4'],
      ['10', 'v3-numeric', '|', '', '', '5'], // the compact form
      ['11', 'v3-numeric', '~', '', '', '5'], // the initialisation format
      ['12', 'v3-numeric', '', '', '', '2'], // ZWJ family and flag poles
    ],
  );
});

test('emojikey/harvest: the body holds raw signatures and typed legs', () => {
  const [key] = select(
    store,
    `SELECT ?body ?me ?you ?text ?legs WHERE {
    ?a weave:eventType "emojikey/harvest" ; weave:sourceKind "tool_input" ; oa:hasBody ?body .
    ?body weave:generation "v3-numeric" ; weave:sig_me ?me ; weave:sig_you ?you ; weave:keyText ?text ; weave:legCount ?legs .
    FILTER NOT EXISTS { ?body weave:sig_content ?c } }`,
  );
  assert.deepEqual(
    [key.me, key.you, key.text, key.legs],
    ['🧠🎨8∠45|🛡️🔑7∠60', '👨‍👩‍👧‍👦🧑6∠120⁸⁵↗️', '[ME|🧠🎨8∠45|🛡️🔑7∠60]~[YOU|👨‍👩‍👧‍👦🧑6∠120⁸⁵↗️]', '3'],
  );
  const legs = select(
    store,
    `SELECT ?i ?component ?a ?b ?m ?angle ?conf ?trend (DATATYPE(?m) AS ?mt) (DATATYPE(?angle) AS ?at) WHERE {
    <${key.body}> weave:leg ?leg . ?leg a weave:EmojikeyLeg ; weave:legIndex ?i ; weave:component ?component ;
      weave:poleA ?a ; weave:poleB ?b ; weave:magnitude ?m ; weave:angle ?angle .
    OPTIONAL { ?leg weave:legConfidence ?conf } OPTIONAL { ?leg weave:trend ?trend } } ORDER BY ?i`,
  );
  assert.deepEqual(
    legs.map((l) => [l.i, l.component, l.a, l.b, l.m, l.angle, l.conf ?? '', l.trend ?? '', l.mt, l.at]),
    [
      ['0', 'ME', '🧠', '🎨', '8', '45', '', '', `${XSD}integer`, `${XSD}integer`],
      ['1', 'ME', '🛡️', '🔑', '7', '60', '', '', `${XSD}integer`, `${XSD}integer`],
      ['2', 'YOU', '👨‍👩‍👧‍👦', '🧑', '6', '120', '85', '↗️', `${XSD}integer`, `${XSD}integer`],
    ],
  );
  // Typed numbers compare as numbers: only the 8 exceeds 7, and only 120 exceeds 100.
  assert.equal(select(store, `SELECT ?m WHERE { <${key.body}> weave:leg/weave:magnitude ?m FILTER(?m > 7) }`).length, 1);
  assert.equal(select(store, `SELECT ?a WHERE { <${key.body}> weave:leg/weave:angle ?a FILTER(?a > 100) }`).length, 1);
});

test('emojikey/update: UPDATE statements as findings of their own type, with path, before and after, and legs', () => {
  const rows = findings(
    'emojikey/update',
    `?body a weave:EmojikeyUpdate ; weave:updateText ?text ; weave:updatePath ?path ; weave:updateForm ?form ; weave:quoted ?quoted .
    ?annotation prov:wasAttributedTo ?agent . ?claim prov:wasDerivedFrom ?annotation ; weave:detector ?detector ; weave:detectionType ?type ;
      rdf:reifies <<( ?turn weave:exhibits ?exhibits )>> . ?block weave:text ?blockText .`,
    '?body ?text ?path ?form ?quoted ?agent ?detector ?type ?exhibits ?blockText',
  );
  // Code points: "arrow update: " is 14; "⚖️ trust: " 10 (⚖ and FE0F); the family and " whole ME: " 7 + 11.
  assert.deepEqual(
    rows.map((r) => [r.turn, r.kind, r.start, r.end, r.exact, r.path, r.form, r.quoted]),
    [
      [TURN(f0(13)), 'authored', '14', '55', 'UPDATE: ME.Cognitive.Mode 🧠🎨7∠45 → 🧠🎨8∠30', 'ME.Cognitive.Mode', 'before-after', 'false'],
      [TURN(f0(14)), 'authored', '10', '50', 'UPDATE: ME.Trust [🔒🔓7∠20|🔍🕶️8∠45|📝🧿6∠90]', 'ME.Trust', 'legs', 'false'],
      [TURN(f0(15)), 'authored', '18', '67', 'UPDATE: ME [Cognitive:🧠🎨8∠30|Response:📚⚡7∠25|...]', 'ME', 'legs', 'false'],
    ],
  );
  // The id adds the type to what names a key finding: reader, transcript, turn, block (IRIs after the soul), pointer, span.
  const id = createHash('sha256')
    .update(
      [
        'emojikey/harvest',
        `Transcript/${SESSIONS.forms}`,
        soulless(TURN(f0(15))),
        soulless(BLOCK(f0(15), 0)),
        '',
        18,
        67,
        'emojikey/update',
      ].join('\n'),
    )
    .digest('hex')
    .slice(0, 32);
  assert.equal(rows[2].annotation, `urn:soul:local:Weave/Annotation/${id}`);
  for (const r of rows) {
    assert.equal(sliceCodePoints(r.blockText, Number(r.start), Number(r.end)), r.text);
    assert.equal(r.text, r.exact);
    // Made by the harvest reader, claimed as the update type.
    assert.deepEqual(
      [r.agent, r.detector, r.type, r.exhibits],
      ['urn:soul:local:Weave/detector/emojikey/harvest', 'emojikey', 'emojikey/update', 'emojikey/update'],
    );
  }
  const legs = select(
    store,
    `SELECT ?turn ?role ?i ?component ?dimension ?a ?b ?m ?angle (DATATYPE(?m) AS ?mt) (DATATYPE(?angle) AS ?at) WHERE {
    ?an weave:eventType "emojikey/update" ; oa:hasTarget/weave:atEvent ?turn ; oa:hasBody ?body .
    VALUES (?p ?role) { (weave:legBefore "before") (weave:legAfter "after") (weave:leg "leg") }
    ?body ?p ?leg . ?leg a weave:EmojikeyLeg ; weave:legIndex ?i ; weave:component ?component ; weave:poleA ?a ; weave:poleB ?b ;
      weave:magnitude ?m ; weave:angle ?angle . OPTIONAL { ?leg weave:dimension ?dimension } } ORDER BY ?turn DESC(?role) ?i`,
  );
  const INT = `${XSD}integer`;
  assert.deepEqual(
    legs.map((l) => [l.turn.slice(-2), l.role, l.i, l.component, l.dimension ?? '', l.a, l.b, l.m, l.angle, l.mt, l.at]),
    [
      ['13', 'before', '0', 'ME', '', '🧠', '🎨', '7', '45', INT, INT],
      ['13', 'after', '0', 'ME', '', '🧠', '🎨', '8', '30', INT, INT],
      ['14', 'leg', '0', 'ME', '', '🔒', '🔓', '7', '20', INT, INT],
      ['14', 'leg', '1', 'ME', '', '🔍', '🕶️', '8', '45', INT, INT],
      ['14', 'leg', '2', 'ME', '', '📝', '🧿', '6', '90', INT, INT],
      ['15', 'leg', '0', 'ME', 'Cognitive', '🧠', '🎨', '8', '30', INT, INT],
      ['15', 'leg', '1', 'ME', 'Response', '📚', '⚡', '7', '25', INT, INT],
    ],
  );
  // The bracketed legs belong to the statement: no key is read there as well.
  assert.deepEqual(
    select(
      store,
      `SELECT ?a WHERE { ?a weave:eventType "emojikey/harvest" ; oa:hasTarget/weave:atEvent ?turn
    VALUES ?turn { <${TURN(f0(13))}> <${TURN(f0(14))}> <${TURN(f0(15))}> } }`,
    ),
    [],
  );
});

test('the annotation and the claim are shaped exactly as the card draws them', async () => {
  const nq = await readerGraphFile(dir, SESSIONS.emojikey, 'emojikey/harvest');
  // The v1 key: reader, transcript, turn, block (IRIs after the soul), pointer and span (code points) name it.
  const transcript = `urn:soul:local:Weave/Transcript/${SESSIONS.emojikey}`;
  const id = createHash('sha256')
    .update(['emojikey/harvest', soulless(transcript), soulless(TURN(e3(9))), soulless(BLOCK(e3(9), 0)), '/emojikey', 0, 5].join('\n'))
    .digest('hex')
    .slice(0, 32);
  const A = `urn:soul:local:Weave/Annotation/${id}`;
  const G = `<urn:soul:local:Weave/graph/${SESSIONS.emojikey}/reader/emojikey/harvest>`;
  const W = (l: string) => `<https://repolex.ai/ontology/weave#${l}>`;
  const OA = (l: string) => `<http://www.w3.org/ns/oa#${l}>`;
  const PROV = (l: string) => `<http://www.w3.org/ns/prov#${l}>`;
  const TYPE = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>';
  const INT = (n: number) => `"${n}"^^<${XSD}integer>`;
  const mine = nq
    .split('\n')
    .filter((l) => l.includes(id))
    .sort();
  const expected = [
    `<${A}> ${TYPE} ${OA('Annotation')}`,
    `<${A}> ${PROV('wasAttributedTo')} <urn:soul:local:Weave/detector/emojikey/harvest>`,
    // The source event's time, in the canonical form the store gives it back in.
    `<${A}> ${PROV('generatedAtTime')} "2026-03-02T10:00:00Z"^^<${XSD}dateTime>`,
    `<${A}> ${W('eventType')} "emojikey/harvest"`,
    `<${A}> ${W('sourceKind')} "tool_input"`,
    `<${A}> ${OA('hasTarget')} <${A}/target>`,
    `<${A}> ${PROV('used')} <${TURN(e3(9))}>`,
    `<${A}> ${PROV('used')} <${BLOCK(e3(9), 0)}>`,
    `<${A}> ${OA('hasBody')} <${A}/body>`,
    `<${A}/target> ${TYPE} ${OA('SpecificResource')}`,
    `<${A}/target> ${OA('hasSource')} <${transcript}>`,
    `<${A}/target> ${W('atEvent')} <${TURN(e3(9))}>`,
    `<${A}/target> ${W('atBlock')} <${BLOCK(e3(9), 0)}>`,
    `<${A}/target> ${W('inputPointer')} "/emojikey"`,
    `<${A}/target> ${OA('hasSelector')} <${A}/position>`,
    `<${A}/target> ${OA('hasSelector')} <${A}/quote>`,
    `<${A}/position> ${TYPE} ${OA('TextPositionSelector')}`,
    `<${A}/position> ${OA('start')} ${INT(0)}`,
    `<${A}/position> ${OA('end')} ${INT(5)}`,
    `<${A}/quote> ${TYPE} ${OA('TextQuoteSelector')}`,
    `<${A}/quote> ${OA('exact')} "🧠💫⚡🌌🤖"`,
    `<${A}/quote> ${OA('prefix')} ""`,
    `<${A}/quote> ${OA('suffix')} ""`,
    `<${A}/body> ${TYPE} ${W('FindingBody')}`,
    `<${A}/body> ${TYPE} ${W('EmojikeyReading')}`,
    `<${A}/body> ${W('keyText')} "🧠💫⚡🌌🤖"`,
    `<${A}/body> ${W('generation')} "v1"`,
    `<${A}/body> ${W('quoted')} "false"^^<${XSD}boolean>`,
    `<${A}/body> ${W('legCount')} ${INT(0)}`,
    `<urn:soul:local:Weave/Claim/${id}> ${TYPE} ${W('Claim')}`,
    `<urn:soul:local:Weave/Claim/${id}> ${TYPE} ${PROV('Entity')}`,
    `<urn:soul:local:Weave/Claim/${id}> <http://www.w3.org/1999/02/22-rdf-syntax-ns#reifies> <<( <${TURN(e3(9))}> ${W('exhibits')} "emojikey/harvest" )>>`,
    `<urn:soul:local:Weave/Claim/${id}> ${PROV('wasDerivedFrom')} <${A}>`,
    `<urn:soul:local:Weave/Claim/${id}> ${W('detector')} "emojikey"`,
    `<urn:soul:local:Weave/Claim/${id}> ${W('detectionType')} "emojikey/harvest"`,
  ]
    .map((l) => `${l} ${G} .`)
    .sort();
  assert.deepEqual(mine, expected);
  // The detector: a prov:SoftwareAgent with its version, described once in its own graph.
  assert.ok(!nq.split('\n').some((l) => l.startsWith('<urn:soul:local:Weave/detector/')), 'no session graph describes the detector');
  const agent = select(
    store,
    `SELECT ?g ?p ?o WHERE { GRAPH ?g { <urn:soul:local:Weave/detector/emojikey/harvest> ?p ?o } } ORDER BY ?p ?o`,
  );
  assert.deepEqual(
    agent.map((r) => [r.g, r.p, r.o]),
    [
      [
        'urn:soul:local:Weave/graph/detector/emojikey/harvest',
        'http://www.w3.org/1999/02/22-rdf-syntax-ns#type',
        'http://www.w3.org/ns/prov#SoftwareAgent',
      ],
      [
        'urn:soul:local:Weave/graph/detector/emojikey/harvest',
        'http://www.w3.org/1999/02/22-rdf-syntax-ns#type',
        'https://repolex.ai/ontology/weave#Detector',
      ],
      [
        'urn:soul:local:Weave/graph/detector/emojikey/harvest',
        'http://www.w3.org/2000/01/rdf-schema#comment',
        'Finds emojikeys (v1 free strings, v2, v3 numeric, summary, superkey and arrow forms) and UPDATE statements (as emojikey/update), and splits them into typed legs.',
      ],
      ['urn:soul:local:Weave/graph/detector/emojikey/harvest', 'http://www.w3.org/2000/01/rdf-schema#label', 'emojikey/harvest'],
      ['urn:soul:local:Weave/graph/detector/emojikey/harvest', 'https://repolex.ai/ontology/weave#detectorVersion', '2'],
    ],
  );
});

test('every position selector slices the stored text by code points to the quote, with its context', () => {
  const rows = select(
    store,
    `SELECT ?a ?reader ?start ?end ?exact ?prefix ?suffix ?text ?input ?pointer WHERE {
    ?a weave:eventType ?reader ; oa:hasTarget ?t . ?t weave:atBlock ?block ; oa:hasSelector ?p , ?q .
    ?p oa:start ?start ; oa:end ?end . ?q oa:exact ?exact ; oa:prefix ?prefix ; oa:suffix ?suffix .
    OPTIONAL { ?block weave:text ?text } OPTIONAL { ?block weave:toolInput ?input } OPTIONAL { ?t weave:inputPointer ?pointer } }`,
  );
  const quotable = select(store, 'SELECT ?a WHERE { ?a a oa:Annotation ; weave:eventType ?t FILTER(?t != "secret/exposure") }');
  assert.deepEqual(rows.map((r) => r.a).sort(), quotable.map((r) => r.a).sort(), 'every finding but the secrets has one quote');
  for (const r of rows) {
    const text = r.pointer ? pointerValue(JSON.parse(r.input), r.pointer) : r.text;
    const [start, end] = [Number(r.start), Number(r.end)];
    assert.equal(sliceCodePoints(text, start, end), r.exact, `${r.reader} ${start}-${end}`);
    assert.equal(r.prefix, sliceCodePoints(text, Math.max(0, start - 32), start));
    assert.equal(r.suffix, sliceCodePoints(text, end, end + 32));
  }
});

function pointerValue(value: unknown, pointer: string): string {
  for (const part of pointer.split('/').slice(1)) value = (value as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return value as string;
}

test('a claim never asserts its triple', () => {
  assert.equal(store.query('ASK { ?e <https://repolex.ai/ontology/weave#exhibits> ?x }', { use_default_graph_as_union: true }), false);
  const claims = select(
    store,
    `SELECT ?type (COUNT(*) AS ?n) WHERE { ?c rdf:reifies <<( ?e weave:exhibits ?type )>> ; a weave:Claim } GROUP BY ?type ORDER BY ?type`,
  );
  // One claim per finding the tests of each reader list: 3 corrections; 10 keys in the emojikey
  // session and 11 in the forms session; its 3 UPDATE statements; 6 typed prompts and the first
  // prompts of the other 3 sessions; 3 secrets; 2 failed tool results.
  assert.deepEqual(
    claims.map((c) => [c.type, c.n]),
    [
      ['agent/correction', '3'],
      ['emojikey/harvest', '21'],
      ['emojikey/update', '3'],
      ['human/authored', '9'],
      ['secret/exposure', '3'],
      ['tool/error', '2'],
    ],
  );
});

test('human/authored: only what a person typed', () => {
  const rows = findings(
    'human/authored',
    '?body weave:basis ?basis ; weave:charCount ?chars . ?c prov:wasDerivedFrom ?annotation ; weave:confidence ?conf .',
    '?basis ?chars ?conf',
  );
  const prompts = rows.filter((r) => r.turn.includes('b0000000'));
  assert.deepEqual(
    prompts.map((r) => [r.turn.slice(-2), r.block.slice(-4), r.start, r.end, r.chars, r.basis, r.conf]),
    [
      ['01', '01/0', '0', '32', '32', 'origin-human', '0.95'],
      // 03 isMeta, 04 a slash command, 05 a task notification: not typed.
      ['06', '06/0', '0', '58', '58', 'origin-human', '0.95'],
      // The IDE's opened-file note is block 0; the prompt is block 1.
      ['08', '08/1', '0', '38', '38', 'origin-human', '0.95'],
      // 10 an interruption marker, 13 a compaction summary, 14 a sidechain prompt: not typed.
      ['11', '11/0', '0', '48', '48', 'origin-human', '0.95'],
      ['15', '15/0', '0', '37', '37', 'no-injection-marks', '0.8'],
      // Typed, but it answers the question turn 16 asked: no correction (see below).
      ['17', '17/0', '0', '19', '19', 'no-injection-marks', '0.8'],
    ],
  );
  assert.deepEqual(
    rows.filter((r) => !r.turn.includes('b0000000')).map((r) => r.turn),
    [TURN(e3(1)), TURN(t7(1)), TURN('f0000000-0000-4000-8000-000000000001')],
  );
});

test('tool/error: failed results with the tool and the first line of the error', () => {
  const rows = findings(
    'tool/error',
    `?body weave:toolName ?tool ; weave:toolUseId ?id ; weave:errorLine ?line . ?annotation prov:used ?use . ?use a weave:ToolUseBlock ; weave:toolUseId ?id .`,
    '?tool ?id ?line ?use',
  );
  assert.deepEqual(
    rows.map((r) => [r.turn, r.block, r.kind, r.start, r.end, r.exact, r.tool, r.id, r.line, r.use]),
    [
      [
        TURN(t7(3)),
        BLOCK(t7(3), 0),
        'tool_result',
        '0',
        '27',
        '<tool_use_error>Exit code 1',
        'Bash',
        'toolu_tl01',
        'Exit code 1',
        BLOCK(t7(2), 0),
      ],
      [
        TURN(t7(7)),
        BLOCK(t7(7), 0, 0),
        'tool_result',
        '1',
        '37',
        'String to replace not found in file.',
        'Edit',
        'toolu_tl03',
        'String to replace not found in file.',
        BLOCK(t7(6), 0),
      ],
    ],
  );
});

test('secret/exposure: kind, length and digest keyed with the store key; never the secret', async () => {
  const secrets = [
    'sk-ant-api03-FAKEfakeFAKEfake0123456789_-FAKEfakeFAKEfake0123',
    'hunter2pass',
    'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB',
  ];
  // The store's key: 64 hex digits in secret.key, readable by its owner only.
  const keyFile = join(dir, 'secret.key');
  assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
  const key = Buffer.from((await readFile(keyFile, 'utf8')).trim(), 'hex');
  assert.equal(key.length, 32);
  const digest = (s: string) => `hmac-sha256:${createHmac('sha256', key).update(s).digest('hex').slice(0, 16)}`;
  const rows = findings(
    'secret/exposure',
    `?body weave:secretKind ?secret ; weave:secretLength ?len ; weave:secretDigest ?digest ; weave:toolName ?tool .
    ?c prov:wasDerivedFrom ?annotation ; weave:confidence ?conf .`,
    '?secret ?len ?digest ?tool ?conf',
  );
  assert.deepEqual(
    rows.map((r) => [r.turn, r.kind, r.pointer ?? '', r.start, r.end, r.exact ?? '', r.secret, r.len, r.digest, r.tool, r.conf]),
    [
      [TURN(t7(2)), 'tool_input', '/command', '25', '86', '', 'anthropic-api-key', '61', digest(secrets[0]), 'Bash', '0.95'],
      [TURN(t7(5)), 'tool_result', '', '35', '46', '', 'url-credentials', '11', digest(secrets[1]), 'Read', '0.8'],
      [TURN(t7(5)), 'tool_result', '', '88', '130', '', 'github-token', '42', digest(secrets[2]), 'Read', '0.95'],
    ],
  );
  for (const name of await readdir(join(dir, 'graphs'))) {
    const text = await readFile(join(dir, 'graphs', name), 'utf8');
    if (!text.includes('/reader/')) continue;
    for (const s of secrets) assert.ok(!text.includes(s), `a reader graph holds a secret (${name})`);
  }
});

test('agent/correction: opening cues, tied to the answer they correct', () => {
  const rows = findings(
    'agent/correction',
    `?body weave:cue ?cue ; weave:cueText ?cueText . ?annotation prov:used ?answer . ?answer a/weave:turnRole "assistant" .
    ?c prov:wasDerivedFrom ?annotation ; weave:confidence ?conf .`,
    '?cue ?cueText ?answer ?conf',
  );
  assert.deepEqual(
    rows.map((r) => [r.turn, r.start, r.end, r.exact, r.cue, r.cueText, r.answer, r.conf]),
    [
      [TURN(b0(6)), '0', '3', 'No,', 'negation', 'No,', TURN(b0(2)), '0.7'],
      [TURN(b0(8)), '0', '10', 'You forgot', 'you-failed', 'You forgot', TURN(b0(7)), '0.8'],
      // A branch: this prompt replies to turn 12, a day later.
      [TURN(b0(15)), '0', '11', 'Why did you', 'why-did-you', 'Why did you', TURN(b0(12)), '0.6'],
      // Turn 17, "No, leave it there.", answers "Should I move it back?": not a correction.
    ],
  );
});

test('every weave: term the readers write is declared in the ontology', () => {
  const used = select(
    store,
    `SELECT DISTINCT ?term WHERE {
    GRAPH ?g { { ?s ?term ?o } UNION { ?s a ?term } } FILTER((CONTAINS(STR(?g), "/reader/") || CONTAINS(STR(?g), "/detector/")) && STRSTARTS(STR(?term), STR(weave:))) }`,
  ).map((r) => r.term);
  assert.ok(used.length >= 40, `only ${used.length} terms`);
  const declared = new Set(
    select(
      store,
      `SELECT ?term WHERE { GRAPH <https://repolex.ai/ontology/weave> {
    ?term a ?kind VALUES ?kind { owl:Class owl:ObjectProperty owl:DatatypeProperty } } }`,
    ).map((r) => r.term),
  );
  assert.deepEqual(
    used.filter((t) => !declared.has(t)),
    [],
  );
});
