import { join } from 'node:path';
import { StreamParser } from 'n3';
import { createReadStream } from 'node:fs';
import type { Quad } from '@rdfjs/types';
import { DataGraph } from './graph.ts';
import { noStoreLine } from '../store/fixtures.ts';
import { filesOf, readManifest, type GraphEntry, type Manifest } from '../store/manifest.ts';
import { loadShapes, validateDataset, type Shapes, type Violation } from './shapes.ts';

/**
 * `weave validate`: the store checked against ontology/shapes.ttl one unit at a time, so memory
 * stays bounded by the largest session. A unit is a session graph with its readers' graphs (an
 * annotation's target is a turn of the session); the links graph and each detector's graph are
 * units of their own.
 */

interface Unit {
  /** The session graph, or the graph itself for a unit of one. */
  name: string;
  sessionId?: string;
  graphs: [string, GraphEntry][];
}

interface UnitResult {
  name: string;
  sessionId?: string;
  graphs: number;
  quads: number;
  violations: Violation[];
}

export interface StoreValidation {
  units: UnitResult[];
  graphs: number;
  quads: number;
  violations: number;
  millis: number;
}

interface ValidateOptions {
  /** Only the session with this id, or the one whose id starts with it. */
  session?: string;
  onUnit?: (result: UnitResult) => void;
  shapes?: Shapes;
}

export class ValidateError extends Error {}

export async function validateStore(dir: string, options: ValidateOptions = {}): Promise<StoreValidation> {
  const started = performance.now();
  const manifest = await readManifest(dir);
  if (!manifest) throw new ValidateError(await noStoreLine(dir));
  const units = options.session === undefined ? unitsOf(manifest) : [sessionUnit(manifest, options.session)];
  const shapes = options.shapes ?? (await loadShapes());
  const out: StoreValidation = { units: [], graphs: 0, quads: 0, violations: 0, millis: 0 };
  for (const unit of units) {
    const dataset = new DataGraph();
    // A session graph kept in parts: its spine and derived part, each as long as the entry names.
    for (const [, entry] of unit.graphs) for (const { file, bytes } of filesOf(entry)) await readGraphFile(join(dir, file), dataset, bytes);
    const result: UnitResult = {
      name: unit.name,
      sessionId: unit.sessionId,
      graphs: unit.graphs.length,
      quads: dataset.size,
      violations: await validateDataset(shapes, dataset),
    };
    out.units.push(result);
    out.graphs += result.graphs;
    out.quads += result.quads;
    out.violations += result.violations.length;
    options.onUnit?.(result);
  }
  out.millis = performance.now() - started;
  return out;
}

/** Every graph of the manifest in exactly one unit: sessions with their readers, the rest alone. */
function unitsOf(manifest: Manifest): Unit[] {
  const units = new Map<string, Unit>();
  const bySession = new Map<string, Unit>();
  const entries = Object.entries(manifest.graphs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [graph, entry] of entries) {
    if (entry.sessionId === undefined || entry.reader) continue;
    const unit: Unit = { name: graph, sessionId: entry.sessionId, graphs: [[graph, entry]] };
    units.set(graph, unit);
    bySession.set(entry.sessionId, unit);
  }
  for (const [graph, entry] of entries) {
    if (units.has(graph)) continue;
    const session = entry.reader && entry.sessionId !== undefined ? bySession.get(entry.sessionId) : undefined;
    if (session) session.graphs.push([graph, entry]);
    else units.set(graph, { name: graph, graphs: [[graph, entry]] });
  }
  return [...units.values()];
}

function sessionUnit(manifest: Manifest, id: string): Unit {
  const sessions = unitsOf(manifest).filter((u) => u.sessionId !== undefined);
  const exact = sessions.filter((u) => u.sessionId === id);
  const matches = exact.length ? exact : sessions.filter((u) => u.sessionId!.startsWith(id));
  if (matches.length === 1) return matches[0];
  if (!matches.length) throw new ValidateError(`no session "${id}" in the store`);
  throw new ValidateError(`"${id}" names ${matches.length} sessions; give more of the id`);
}

/** Streams one graph file's quads into `dataset`, all into its default graph. */
async function readGraphFile(path: string, dataset: DataGraph, bytes?: number): Promise<void> {
  if (bytes === 0) return;
  const parser = new StreamParser({ format: 'application/n-quads' });
  const quads = createReadStream(path, bytes === undefined ? {} : { end: bytes - 1 }).pipe(parser) as AsyncIterable<Quad>;
  try {
    for await (const q of quads) dataset.add(q);
  } catch (e) {
    // N3's message quotes the token it stopped at, and graph files hold transcript text.
    const line = /line (\d+)/.exec((e as Error).message)?.[1];
    throw new ValidateError(`${path}${line ? `:${line}` : ''}: not valid N-Quads`);
  }
}
