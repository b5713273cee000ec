import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Parser } from 'n3';
import type { Quad } from '@rdfjs/types';
import oxigraph from 'oxigraph';
import type { IngestReport } from '../../src/ingest.ts';
import { PREFIXES } from '../../src/rdf/vocab.ts';
import { WEAVE_TERMS } from '../../src/rdf/weave-terms.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { readGraphBytes } from '../../src/store/manifest.ts';
import { openStore } from '../../src/store/store.ts';
import { select } from '../helpers.ts';

/**
 * What must hold after any fuzzed ingest: each check returns what is wrong, in words that name
 * the file, line or graph (an empty list when all is well).
 */

/** The lines of a file as the reader splits them: number, whether blank, whether terminated. */
export function linesOf(bytes: Buffer): { lineNo: number; blank: boolean }[] {
  const out: { lineNo: number; blank: boolean }[] = [];
  let from = 0;
  let lineNo = 0;
  while (from < bytes.length) {
    let nl = bytes.indexOf(0x0a, from);
    if (nl < 0) nl = bytes.length;
    let end = nl;
    if (end > from && bytes[end - 1] === 0x0d) end--;
    let start = from;
    if (from === 0 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) start = 3;
    out.push({ lineNo: ++lineNo, blank: !bytes.toString('utf8', start, Math.max(start, end)).trim() });
    from = nl + 1;
  }
  return out;
}

/** Every non-blank line is an Event, a replayed copy, or a malformed or pending line that was reported. */
export async function everyLineAccounted(
  storeDir: string,
  files: Map<string, Buffer>,
  root: string,
  report: IngestReport,
): Promise<string[]> {
  const { store } = await openStore(storeDir);
  const seen = new Set(
    select(
      store,
      `SELECT ?path ?n ?kind WHERE { GRAPH ?g {
      ?t weave:sourcePath ?path .
      { ?t weave:hasEvent ?e . ?e weave:sourceLine ?n BIND("event" AS ?kind) }
      UNION { ?x weave:inTranscript ?t ; weave:sourceLine ?n ; a ?c . BIND(STRAFTER(STR(?c), "#") AS ?kind) } } }`,
    ).map((r) => `${r.path}:${r.n}:${r.kind}`),
  );
  const accounted = (path: string, n: number) =>
    ['event', 'ReplayedRecord', 'MalformedLine', 'PendingLine'].filter((k) => seen.has(`${path}:${n}:${k}`));
  const reported = new Set(
    report.problems.filter((p) => p.kind === 'malformed' || p.kind === 'pending').map((p) => `${p.path}:${p.lineNo}`),
  );
  const wrong: string[] = [];
  for (const [name, bytes] of files) {
    const path = join(root, name);
    for (const { lineNo, blank } of linesOf(bytes)) {
      if (blank) continue;
      const kinds = accounted(path, lineNo);
      if (kinds.length !== 1) wrong.push(`${name}:${lineNo} is ${kinds.length ? kinds.join(' and ') : 'in no graph'}`);
      else if ((kinds[0] === 'MalformedLine' || kinds[0] === 'PendingLine') !== reported.has(`${path}:${lineNo}`))
        wrong.push(
          `${name}:${lineNo} is a ${kinds[0]} ${reported.has(`${path}:${lineNo}`) ? 'but reported' : 'not reported with its file and line'}`,
        );
    }
  }
  for (const p of report.problems) if (!p.path || !(p.lineNo >= 0)) wrong.push(`a problem without file and line: ${p.kind}`);
  return wrong;
}

const ALLOWED_PREDICATES = new Set([
  ...WEAVE_TERMS.map((t) => PREFIXES.weave + t),
  ...['type', 'reifies'].map((t) => PREFIXES.rdf + t),
  ...['label', 'comment'].map((t) => PREFIXES.rdfs + t),
  ...['used', 'generated', 'wasDerivedFrom', 'wasAttributedTo', 'generatedAtTime', 'endedAtTime'].map((t) => PREFIXES.prov + t),
  ...['hasBody', 'hasTarget', 'hasSource', 'hasSelector', 'exact', 'prefix', 'suffix', 'start', 'end'].map((t) => PREFIXES.oa + t),
  `${PREFIXES.dcterms}identifier`,
]);
const VOCABULARIES = Object.values(PREFIXES);

/**
 * Every graph file re-parses in Oxigraph and in N3.js to the count the manifest states; and no
 * quad is one the data put there: subjects are Weave instances, predicates the vocabulary Weave
 * writes, IRI objects instances or vocabulary terms, the graph the file's own.
 */
export async function graphFilesSound(storeDir: string): Promise<string[]> {
  const manifest = (await readManifest(storeDir))!;
  const wrong: string[] = [];
  const instance = `urn:soul:${manifest.soul}:Weave/`;
  for (const [graph, entry] of Object.entries(manifest.graphs)) {
    const text = (await readGraphBytes(storeDir, entry)).toString('utf8');
    let n3: Quad[];
    try {
      n3 = new Parser({ format: 'application/n-quads' }).parse(text) as Quad[];
    } catch (e) {
      wrong.push(`${graph}: N3.js cannot parse it (${(e as Error).message.slice(0, 80)})`);
      continue;
    }
    const ox = new oxigraph.Store();
    try {
      ox.load(text, { format: 'application/n-quads' });
    } catch (e) {
      wrong.push(`${graph}: Oxigraph cannot parse it (${(e as Error).message.slice(0, 80)})`);
      continue;
    }
    if (n3.length !== entry.quads || ox.size !== entry.quads)
      wrong.push(`${graph}: ${entry.quads} quads in the manifest, ${n3.length} by N3.js, ${ox.size} by Oxigraph`);
    for (const q of n3) {
      const at = `${graph}: <${q.subject.value}> <${q.predicate.value}>`;
      if (q.graph.value !== graph) wrong.push(`${at} is in graph <${q.graph.value}>`);
      if (q.subject.termType !== 'NamedNode' || !q.subject.value.startsWith(instance))
        wrong.push(`${at}: the subject is not a Weave instance`);
      if (!ALLOWED_PREDICATES.has(q.predicate.value)) wrong.push(`${at}: a predicate Weave never writes`);
      const o = q.object;
      if (o.termType === 'NamedNode' && !o.value.startsWith(instance) && !VOCABULARIES.some((ns) => o.value.startsWith(ns)))
        wrong.push(`${at}: object <${o.value}> is neither instance nor vocabulary`);
      if (o.termType === 'BlankNode') wrong.push(`${at}: a blank node`);
    }
  }
  return wrong;
}

/** The planted token is nowhere but in session graphs: not in readers' graphs, the manifest, or any message. */
export async function secretStaysInSession(storeDir: string, secret: string, messages: string[]): Promise<string[]> {
  const manifest = (await readManifest(storeDir))!;
  const wrong: string[] = [];
  const fragments = [secret, secret.slice(4, 20), secret.slice(-16)];
  const holds = (text: string) => fragments.some((f) => text.includes(f));
  for (const [graph, entry] of Object.entries(manifest.graphs)) {
    if (!entry.reader && !graph.includes('/graph/detector/') && !graph.endsWith('/graph/links')) continue;
    if (holds((await readGraphBytes(storeDir, entry)).toString('utf8'))) wrong.push(`${graph} holds the planted secret`);
  }
  if (holds(await readFile(join(storeDir, 'manifest.json'), 'utf8'))) wrong.push('manifest.json holds the planted secret');
  for (const m of messages) if (holds(m)) wrong.push(`a message holds the planted secret: ${m.slice(0, 60)}`);
  return wrong;
}
