import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { OxStore } from '../../src/store/store.ts';
import { FIXTURES, REPO, removeDir, select } from '../helpers.ts';
import { detectedStore } from './helpers.ts';

/**
 * Issue 25: the secret reader read turns' texts and tool input and output, but not the raw text
 * of a line that is not a record, which the store keeps whole (weave:rawText). In
 * fixtures/hardening/malformed lines 2 to 7 do not parse and each carries the same planted
 * Anthropic key (64 characters). Its place in each line, counted by hand in code points: after
 * `{"token": ` (10); after `{"pad":"` + 60 p + `","token":` (78); after ESC `]0;pwned by ` (13);
 * after `{"type":"user","uuid":` NUL `"` (24); after U+202E `{"type":"user"} ` (17); after
 * `{"type":"user","note":"` (23). No turn holds such a line: the card's weave:atEvent and a claim
 * are a turn's (and ravel's atTurn), so the finding is weave:atLine the line, and unclaimed.
 */

const SESSION = 'ba0ba0ba-0000-4000-8000-000000000001';
const LINE = (n: number) => `urn:soul:local:Weave/MalformedLine/${SESSION}/L${n}`;
const STARTS: [number, number][] = [
  [2, 10],
  [3, 78],
  [4, 13],
  [5, 24],
  [6, 17],
  [7, 23],
];

let dir: string;
let store: OxStore;
before(async () => {
  ({ dir, store } = await detectedStore([join(FIXTURES, 'hardening', 'malformed')]));
});
after(() => removeDir(dir));

test('a secret in a malformed line is found, at the line (weave:atLine), at no turn or block, with no quote and no time', () => {
  const found = select(
    store,
    `SELECT ?event ?kind ?length ?start ?end ?sourceKind ?source
       (EXISTS { ?target weave:atEvent|weave:atBlock ?b } AS ?inTurn) (EXISTS { ?target oa:hasSelector/a oa:TextQuoteSelector } AS ?quoted)
       (EXISTS { ?a prov:generatedAtTime ?t } AS ?timed)
     WHERE {
       ?a weave:eventType "secret/exposure" ; weave:sourceKind ?sourceKind ; oa:hasTarget ?target ;
          oa:hasBody [ weave:secretKind ?kind ; weave:secretLength ?length ] .
       ?target weave:atLine ?event ; oa:hasSource ?source ; oa:hasSelector [ a oa:TextPositionSelector ; oa:start ?start ; oa:end ?end ] .
     } ORDER BY ?start`,
  );
  assert.deepEqual(
    found.map((r) => [r.event, r.kind, r.length, r.start, r.end, r.sourceKind, r.source, r.inTurn, r.quoted, r.timed]),
    [...STARTS]
      .sort((x, y) => x[1] - y[1])
      .map(([line, start]) => [
        LINE(line),
        'anthropic-api-key',
        '64',
        String(start),
        String(start + 64),
        'malformed_line',
        `urn:soul:local:Weave/Transcript/${SESSION}`,
        'false',
        'false',
        'false',
      ]),
  );
});

test("no claim says a turn exhibits it (no turn holds the line), and the ready query counts the session's exposures", async () => {
  assert.deepEqual(select(store, 'SELECT ?c WHERE { ?c rdf:reifies <<( ?event weave:exhibits "secret/exposure" )>> }'), []);

  const query = await readFile(join(REPO, 'queries', 'sessions-with-exposed-secrets.rq'), 'utf8');
  assert.deepEqual(
    select(store, query).map((r) => [r.session, r.exposures, r.secrets, r.kinds, r.first]),
    [[SESSION, '6', '1', 'anthropic-api-key', undefined]],
  );
});
