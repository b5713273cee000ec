import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Parser } from 'n3';
import type { Quad } from '@rdfjs/types';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { ONTOLOGY_FILE } from '../../src/store/ontology.ts';
import { openStore } from '../../src/store/store.ts';
import { SHAPES_FILE } from '../../src/validate/shapes.ts';
import { FIXTURES, removeDir, select, tempDir } from '../helpers.ts';

/**
 * The shapes keep up with the graph: every class the fixtures make Weave emit has a shape that
 * targets it, and every datatype a shape asks of a weave: property is the range the ontology
 * declares for it (or, for values copied from a transcript, the "as found" form of that range).
 */

const SH = 'http://www.w3.org/ns/shacl#';
const WSH = 'https://repolex.ai/ontology/weave/shapes#';
const W = 'https://repolex.ai/ontology/weave#';
const XSD = 'http://www.w3.org/2001/XMLSchema#';
const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const shapes = new Parser().parse(readFileSync(SHAPES_FILE, 'utf8')) as Quad[];
const ontology = new Parser().parse(readFileSync(ONTOLOGY_FILE, 'utf8')) as Quad[];

test('every class Weave emits for the fixtures is the target of a shape', async () => {
  const dir = await tempDir();
  try {
    await ingest([join(FIXTURES)], { storeDir: dir, soul: 'local' });
    await detect({ storeDir: dir });
    const { store } = await openStore(dir);
    // weave: classes (prov:Activity and the like are superclasses their subclasses' shapes require).
    const emitted = select(
      store,
      `SELECT DISTINCT ?c WHERE { GRAPH ?g { ?s a ?c } FILTER(?g != <https://repolex.ai/ontology/weave> && STRSTARTS(STR(?c), "${W}")) }`,
    ).map((r) => r.c);
    const targeted = new Set(shapes.filter((q) => q.predicate.value === `${SH}targetClass`).map((q) => q.object.value));
    assert.ok(emitted.length > 60, `${emitted.length} weave: classes emitted`);
    assert.deepEqual(emitted.filter((c) => !targeted.has(c)).sort(), []);
  } finally {
    await removeDir(dir);
  }
});

test("a shape's datatype for a weave: property is the ontology's range for it, or its as-found form", () => {
  const range = new Map(
    ontology
      .filter((q) => q.predicate.value === 'http://www.w3.org/2000/01/rdf-schema#range')
      .map((q) => [q.subject.value, q.object.value]),
  );
  // Values copied from a transcript keep the type they were found with (see the shapes' header).
  const asFound: Record<string, string[]> = {
    [`${WSH}Number`]: [`${XSD}integer`, `${XSD}decimal`],
    [`${WSH}JsonOrCut`]: [`${RDF}JSON`],
    [`${WSH}TimeOrText`]: [`${XSD}dateTime`],
    [`${WSH}Count`]: [`${XSD}integer`],
    [`${WSH}Sha256`]: [`${XSD}string`],
  };
  const of = (node: Quad['subject'], p: string) =>
    shapes.filter((q) => q.subject.equals(node) && q.predicate.value === p).map((q) => q.object);
  let checked = 0;
  const wrong: string[] = [];
  for (const q of shapes.filter((x) => x.predicate.value === `${SH}path` && x.object.value.startsWith(W))) {
    const declared = range.get(q.object.value);
    if (!declared || (!declared.startsWith(XSD) && declared !== `${RDF}JSON`)) continue;
    for (const dt of of(q.subject, `${SH}datatype`)) {
      checked++;
      if (dt.value !== declared) wrong.push(`${q.object.value}: sh:datatype <${dt.value}>, range <${declared}>`);
    }
    for (const node of of(q.subject, `${SH}node`)) {
      checked++;
      if (!(asFound[node.value] ?? []).includes(declared)) wrong.push(`${q.object.value}: sh:node <${node.value}>, range <${declared}>`);
    }
  }
  assert.ok(checked > 150, `${checked} property shapes checked`);
  assert.deepEqual(wrong, []);
});
