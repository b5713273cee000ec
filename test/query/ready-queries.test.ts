import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { OxStore } from '../../src/store/store.ts';
import { FIXTURES, ingestFresh, REPO, removeDir, select } from '../helpers.ts';

/**
 * The ready queries rewritten for speed (issue 23) answer as they did: on the fixtures, every row
 * of queries/NAME.rq equals the form they had, kept in bench/before/ (where the bench times the
 * two side by side), and the rows worked out by hand below are there.
 */

let dir: string;
let store: OxStore;
before(async () => {
  ({ dir, store } = await ingestFresh([FIXTURES]));
});
after(() => removeDir(dir));

const text = (...path: string[]) => readFileSync(join(REPO, ...path), 'utf8');
const sorted = (rows: Record<string, string>[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort())).sort();
const local = (iri: string) => iri.slice(iri.lastIndexOf('#') + 1);

for (const [name, rows] of [['record-envelope', 2054]] as const)
  test(`${name}.rq answers every row its earlier form answered, and no other`, () => {
    const now = select(store, text('queries', `${name}.rq`));
    assert.deepEqual(sorted(now), sorted(select(store, text('bench', 'before', `${name}.rq`))));
    assert.equal(now.length, rows);
  });

test('record-envelope.rq: a transcript’s values for each record, but not those a record lacks or states itself', () => {
  const envelope = select(store, text('queries', 'record-envelope.rq'));
  const of = (session: string) =>
    envelope
      .filter((r) => r.session === session)
      .map((r) => `${r.event.slice(r.event.lastIndexOf('/') + 1)} ${local(r.property)} ${r.value}`)
      .sort();
  // hardening/odd: seven records, each with its sessionId and isSidechain false; only the first has
  // a cwd, so the six others lack it and get none of the transcript's.
  const odd = '0dd00dd0-0000-4000-8000-000000000001';
  const bare = ['0d000000-%EF%BF%BD-0002', ...[3, 4, 5, 6, 7].map((n) => `0d000000-0000-4000-8000-00000000000${n}`)];
  assert.deepEqual(
    of(odd),
    [
      '0d000000-0000-4000-8000-000000000001 cwd /home/ada/\u001b[31modd\u202e',
      '0d000000-0000-4000-8000-000000000001 isSidechain false',
      `0d000000-0000-4000-8000-000000000001 recordSessionId ${odd}`,
      ...bare.flatMap((e) => [`${e} isSidechain false`, `${e} recordSessionId ${odd}`]),
    ].sort(),
  );
  // spine 2222…: line 4 is the one sidechain record of the main transcript; it states true itself
  // and does not also get the transcript's false.
  const spine = of('22222222-2222-4222-8222-222222222222').filter((r) => r.includes(' isSidechain '));
  assert.deepEqual(spine, [
    'v-0001 isSidechain false',
    'v-0002 isSidechain false',
    'v-0003 isSidechain true',
    'v-0004 isSidechain false',
    'x-0001 isSidechain true',
    'x-0002 isSidechain true',
  ]);
});
