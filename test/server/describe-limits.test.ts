import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { renderDescribePage } from '../../src/server/http/pages/describe.ts';
import { describeData } from '../../src/server/description.ts';
import { storeSelect } from '../../src/server/workers/operations/rows.ts';
import { fixture, ingested, type Ingested } from '../model/helpers.ts';

/**
 * A node with thousands of statements (a long session's transcript names each of its 89k events)
 * is read a predicate at a time, the first objects of each and how many it has: its page answered
 * in 6 s where it had not in 60. Here with limits small enough for a fixture's transcript.
 */

const TRANSCRIPT = 'urn:soul:test:Weave/Transcript/a1000000-0000-4000-8000-000000000001';

describe('the describe page of a node with more statements than it reads', () => {
  let g: Ingested;
  before(async () => {
    g = await ingested([fixture('resumed-session')]);
  });
  after(() => g.close());

  test('each predicate its first objects and how many it has; the page says how many and links to them all', async () => {
    const whole = await describeData(storeSelect(g.store), TRANSCRIPT);
    const events = whole.statements.filter((s) => s.p.endsWith('#hasEvent')).length;
    assert.ok(events > 4, `${events} events`);
    assert.equal(whole.objects, undefined);
    const read = await describeData(storeSelect(g.store), TRANSCRIPT, { statements: 8, objects: 3 });
    // Every predicate read, none past three objects; those with more counted.
    const predicates = (d: typeof whole) => [...new Set(d.statements.map((s) => s.p))];
    assert.deepEqual(predicates(read), predicates(whole));
    for (const p of predicates(whole)) {
      const all = whole.statements.filter((s) => s.p === p);
      assert.deepEqual(
        read.statements.filter((s) => s.p === p),
        all.slice(0, 3),
        p,
      );
      assert.equal(read.objects?.[p], all.length > 3 ? all.length : undefined, p);
    }
    // The page shows the three read, and says the rest are there: how many, and where all of them are.
    const page = renderDescribePage(read, 'test');
    assert.match(
      page,
      new RegExp(`<summary>${events - 3} more</summary><div>…</div></details> · <a [^>]*>all ${events} in the query editor</a>`),
    );
  });
});
