import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { OxStore } from '../../src/store/store.ts';
import { REPO, removeDir, select } from '../helpers.ts';
import { b0, detectedStore, e3, SESSIONS, TURN } from './helpers.ts';

let dir: string;
let store: OxStore;
before(async () => {
  ({ dir, store } = await detectedStore());
});
after(() => removeDir(dir));

async function rows(file: string): Promise<Record<string, string>[]> {
  return select(store, await readFile(new URL(`queries/${file}`, `file://${REPO}/`), 'utf8'));
}

const EK = SESSIONS.emojikey;

test('done when: one query lists each key of the session with its legs, magnitudes and angles as numbers', async () => {
  const legs = (await rows('emojikey-key-legs.rq')).filter((r) => r.session === EK);
  const byKey = new Map<string, string[]>();
  for (const r of legs) {
    const name = `${r.sourceKind} ${r.quoted === 'true' ? 'quoted ' : ''}${r.keyText}`;
    byKey.set(name, [
      ...(byKey.get(name) ?? []),
      `${r.component} ${r.poleA ?? ''}${r.poleB ?? ''} ${r.magnitude ?? '-'}∠${r.angle ?? '-'}`,
    ]);
  }
  assert.deepEqual(
    [...byKey],
    [
      ['tool_result quoted [ME|🧠🎨8∠45]', ['ME 🧠🎨 8∠45']],
      ['tool_result quoted [ME|🧠🎨8∠45|🔒🔓9∠60]', ['ME 🧠🎨 8∠45', 'ME 🔒🔓 9∠60']],
      ['tool_result quoted [ME|🧠🎨8∠45]~[CONTENT|💻🎨9∠10]', ['ME 🧠🎨 8∠45', 'CONTENT 💻🎨 9∠10']],
      [
        'tool_result [ME|🧠🎨5∠90|🛡️🔑6∠120]~[CONTENT|📏🌊5∠90]~[YOU|👨‍👩‍👧‍👦🧑7∠35]',
        ['ME 🧠🎨 5∠90', 'ME 🛡️🔑 6∠120', 'CONTENT 📏🌊 5∠90', 'YOU 👨‍👩‍👧‍👦🧑 7∠35'],
      ],
      ['tool_result [ME|🧠🎨7∠40]~[YOU|🎓🌱8∠30]', ['ME 🧠🎨 7∠40', 'YOU 🎓🌱 8∠30']],
      [
        'authored [ME|🧠🎨8∠45|🔒🔓9∠60]~[CONTENT|💻🧩9∠15]~[YOU|🎓🌱8∠35|🔥💤9∠10]',
        ['ME 🧠🎨 8∠45', 'ME 🔒🔓 9∠60', 'CONTENT 💻🧩 9∠15', 'YOU 🎓🌱 8∠35', 'YOU 🔥💤 9∠10'],
      ],
      ['tool_input [ME|🧠🎨8∠45|🛡️🔑7∠60]~[YOU|👨‍👩‍👧‍👦🧑6∠120⁸⁵↗️]', ['ME 🧠🎨 8∠45', 'ME 🛡️🔑 7∠60', 'YOU 👨‍👩‍👧‍👦🧑 6∠120']],
      ['tool_result [ME|Cognitive.🧠➡️🔧|Trust.🔒⬅️🔓]~[CONTENT|Domain.💻➡️🧩]', ['ME 🧠🔧 -∠-', 'ME 🔒🔓 -∠-', 'CONTENT 💻🧩 -∠-']],
      [
        'tool_result [[60d|ME|👑🤝8∠35⁸⁵↔️]~~[CONTENT|💻🎨9∠15⁹⁵↔️]~~[YOU|🎓🌱9∠05⁹⁹↔️]]]',
        ['ME 👑🤝 8∠35', 'CONTENT 💻🎨 9∠15', 'YOU 🎓🌱 9∠5'],
      ],
    ],
  );
  // All three places are there, and the numbers are numbers.
  assert.deepEqual([...new Set(legs.map((r) => r.sourceKind))].sort(), ['authored', 'tool_input', 'tool_result']);
  // Legs at magnitude ≥ 9 and angle < 20 in all the fixtures, counted by hand: this session's
  // template 9∠10, authored 9∠15 and 9∠10, summary 9∠15 and 9∠05 (5); the forms session's #SUM
  // 9∠15, 9∠05, 9∠15, superkey 9∠15, 9∠10, compact 9∠10, init 9∠10 (7).
  const strong = select(store, `SELECT (COUNT(*) AS ?n) WHERE { ?leg weave:magnitude ?m ; weave:angle ?a FILTER(?m >= 9 && ?a < 20) }`);
  assert.equal(strong[0].n, '12');
});

test('done when: another lists every claim with the quoted text its annotation points at', async () => {
  const claims = await rows('claims-with-quotes.rq');
  // Every claim the readers made, each once.
  const made = select(store, 'SELECT ?claim WHERE { ?claim a weave:Claim }').map((r) => r.claim);
  assert.deepEqual(claims.map((c) => c.claim).sort(), made.sort());
  const first = claims.filter((c) => c.event === TURN(e3(3)) || c.event === TURN(e3(4)) || c.event === TURN(e3(5)));
  assert.deepEqual(
    first.map((c) => [c.detectionType, c.sourceKind, c.start, c.end, c.exact]),
    [
      ['emojikey/harvest', 'tool_result', '458', '469', '[ME|🧠🎨8∠45]'],
      ['emojikey/harvest', 'tool_result', '490', '508', '[ME|🧠🎨8∠45|🔒🔓9∠60]'],
      ['emojikey/harvest', 'tool_result', '528', '556', '[ME|🧠🎨8∠45]~[CONTENT|💻🎨9∠10]'],
      ['emojikey/harvest', 'tool_result', '630', '686', '[ME|🧠🎨5∠90|🛡️🔑6∠120]~[CONTENT|📏🌊5∠90]~[YOU|👨‍👩‍👧‍👦🧑7∠35]'],
      ['emojikey/harvest', 'tool_result', '694', '718', '[ME|🧠🎨7∠40]~[YOU|🎓🌱8∠30]'],
      ['emojikey/harvest', 'authored', '58', '113', '[ME|🧠🎨8∠45|🔒🔓9∠60]~[CONTENT|💻🧩9∠15]~[YOU|🎓🌱8∠35|🔥💤9∠10]'],
      ['emojikey/harvest', 'tool_input', '0', '43', '[ME|🧠🎨8∠45|🛡️🔑7∠60]~[YOU|👨‍👩‍👧‍👦🧑6∠120⁸⁵↗️]'],
    ],
  );
  assert.equal(first[5].prefix, 't off. My read of us right now: ', 'the 32 code points before');
  assert.equal(first[5].suffix, '. I will record it.');
  // Secrets are listed with their span and no quote.
  assert.deepEqual(
    claims.filter((c) => c.detectionType === 'secret/exposure').map((c) => [c.start, c.end, c.exact ?? null]),
    [
      ['25', '86', null],
      ['35', '46', null],
      ['88', '130', null],
    ],
  );
  assert.ok(claims.filter((c) => c.detectionType !== 'secret/exposure').every((c) => typeof c.exact === 'string' && c.exact.length > 0));
  // The rows it gave as Oxigraph was handed it before the triple term was matched once.
  const before = select(store, await readFile(new URL('bench/before/claims-with-quotes.rq', `file://${REPO}/`), 'utf8'));
  assert.deepEqual(before, claims);
});

test('claims by turn: the natural shape (a triple term joined with the turn class) lists each claim once, in time order', async () => {
  const byTurn = await rows('claims-by-turn.rq');
  // Every claim of the fixtures is about a turn: the claims claims-with-quotes lists, with the same figures.
  const quoted = await rows('claims-with-quotes.rq');
  const figures = (r: Record<string, string>, turn: string) => `${r.claim} ${turn} ${r.detectionType} ${r.confidence ?? '-'}`;
  assert.deepEqual(byTurn.map((r) => figures(r, r.turn)).sort(), quoted.map((c) => figures(c, c.event)).sort());
  // As many per kind as there are weave:Claim nodes of that kind, read without the triple term.
  const perKind = (list: Record<string, string>[]) => {
    const counts = new Map<string, number>();
    for (const r of list) counts.set(r.detectionType, (counts.get(r.detectionType) ?? 0) + 1);
    return [...counts].map(([kind, n]) => `${kind} ${n}`);
  };
  const claimNodes = select(store, 'SELECT ?detectionType WHERE { ?claim a weave:Claim ; weave:detectionType ?detectionType }');
  assert.deepEqual(perKind(byTurn).sort(), perKind(claimNodes).sort());
  assert.deepEqual(perKind(byTurn).sort(), [
    'agent/correction 3',
    'emojikey/harvest 21',
    'emojikey/update 3',
    'human/authored 9',
    'secret/exposure 3',
    'tool/error 2',
  ]);
  // The prompts session's sixth record: a correction the agent reader saw, in a prompt the human typed.
  assert.deepEqual(
    byTurn.filter((r) => r.turn === TURN(b0(6))).map((r) => [r.time, r.detectionType, r.detector, r.confidence]),
    [
      ['2026-03-03T10:03:00Z', 'agent/correction', 'agent', '0.7'],
      ['2026-03-03T10:03:00Z', 'human/authored', 'human', '0.95'],
    ],
  );
  assert.deepEqual(
    byTurn.map((r) => r.time),
    byTurn.map((r) => r.time).sort(),
  );
  // The rows the query gave as Oxigraph was handed it before the triple term was matched once.
  const before = select(store, await readFile(new URL('bench/before/claims-by-turn.rq', `file://${REPO}/`), 'utf8'));
  assert.deepEqual(before, byTurn);
});

test('emojikey legs over time for a session: live keys only, in time order', async () => {
  const legs = (await rows('emojikey-legs-over-time.rq')).filter((r) => r.session === EK);
  assert.deepEqual(
    legs.map((r) => [
      r.time.slice(11, 19),
      r.sourceKind,
      r.component,
      r.dimension ?? '',
      r.magnitude ?? '',
      r.angle ?? '',
      r.confidence ?? '',
      r.trend ?? '',
      r.lean ?? '',
    ]),
    [
      ['09:00:03', 'tool_result', 'ME', '', '5', '90', '', '', ''],
      ['09:00:03', 'tool_result', 'ME', '', '6', '120', '', '', ''],
      ['09:00:03', 'tool_result', 'CONTENT', '', '5', '90', '', '', ''],
      ['09:00:03', 'tool_result', 'YOU', '', '7', '35', '', '', ''],
      ['09:00:03', 'tool_result', 'ME', '', '7', '40', '', '', ''],
      ['09:00:03', 'tool_result', 'YOU', '', '8', '30', '', '', ''],
      ['09:00:05', 'authored', 'ME', '', '8', '45', '', '', ''],
      ['09:00:05', 'authored', 'ME', '', '9', '60', '', '', ''],
      ['09:00:05', 'authored', 'CONTENT', '', '9', '15', '', '', ''],
      ['09:00:05', 'authored', 'YOU', '', '8', '35', '', '', ''],
      ['09:00:05', 'authored', 'YOU', '', '9', '10', '', '', ''],
      ['09:00:06', 'tool_input', 'ME', '', '8', '45', '', '', ''],
      ['09:00:06', 'tool_input', 'ME', '', '7', '60', '', '', ''],
      ['09:00:06', 'tool_input', 'YOU', '', '6', '120', '85', '↗️', ''],
      ['09:30:01', 'tool_result', 'ME', 'Cognitive', '', '', '', '', '1'],
      ['09:30:01', 'tool_result', 'ME', 'Trust', '', '', '', '', '-1'],
      ['09:30:01', 'tool_result', 'CONTENT', 'Domain', '', '', '', '', '1'],
      ['09:30:01', 'tool_result', 'ME', '', '8', '35', '85', '↔️', ''],
      ['09:30:01', 'tool_result', 'CONTENT', '', '9', '15', '95', '↔️', ''],
      ['09:30:01', 'tool_result', 'YOU', '', '9', '5', '99', '↔️', ''],
    ],
  );
});

test('sessions whose secrets were exposed', async () => {
  assert.deepEqual(
    (await rows('sessions-with-exposed-secrets.rq')).map((r) => [
      r.session,
      r.exposures,
      r.secrets,
      r.kinds.split(', ').sort().join(', '),
      r.first,
    ]),
    [[SESSIONS.tools, '3', '3', 'anthropic-api-key, github-token, url-credentials', '2026-03-05T14:00:02Z']],
  );
});

test('tool error rates by tool', async () => {
  assert.deepEqual(
    (await rows('tool-error-rates.rq')).map((r) => [r.tool, r.calls, r.errors, Number(r.rate)]),
    [
      ['Edit', '1', '1', 1],
      ['Bash', '2', '1', 0.5],
      ['mcp__emojikey__set_emojikey', '2', '0', 0],
      ['Grep', '1', '0', 0],
      ['Read', '1', '0', 0],
      ['mcp__ek-prod__get_emojikey_history', '1', '0', 0],
      ['mcp__emojikey__initialize_conversation', '1', '0', 0],
    ],
  );
});

test('tool-error-rates.rq finds the failed calls from the findings, not by trying each finding against every call', async () => {
  // A union joined to the calls (`?use … . { BIND } UNION { ?annotation … prov:used ?use }`) was
  // matched once per call, every tool/error finding each time: 28.5 s at four times the corpus,
  // past the scale bench's 180 s at sixteen. Each branch now binds its own calls, so the union
  // is all of the pattern.
  const where = (await readFile(new URL('queries/tool-error-rates.rq', `file://${REPO}/`), 'utf8'))
    .replace(/#.*$/gm, '')
    .replace(/^[\s\S]*?WHERE\s*/, '')
    .replace(/\s*GROUP BY[\s\S]*$/, '');
  assert.match(where, /^\{\s*\{[^{}]*\}\s*UNION\s*\{[^{}]*\}\s*\}$/);
});

test('human prompts per day', async () => {
  assert.deepEqual(
    (await rows('human-prompts-per-day.rq')).map((r) => [r.day, r.prompts, r.characters]),
    [
      ['2026-03-02', '1', '51'],
      ['2026-03-03', '4', '176'],
      ['2026-03-04', '2', '56'],
      ['2026-03-05', '1', '25'],
      ['2026-03-06', '1', '29'],
    ],
  );
});
