import { join } from 'node:path';
import { readLines } from '../acquire/lines.ts';
import type { Term } from '../rdf/terms.ts';
import type { NamedFile } from '../store/manifest.ts';
import type { StoreWriter } from '../store/writer.ts';

/**
 * What the links pass found in each graph file, kept in the store (`links/scans.<tag>.json`, named
 * in the manifest) so that a command's run reads only the files it has not read, as a server's
 * does from memory: graph files are named by their bytes and a spine only grows, so what was found
 * up to a length stays found. JSON lines: a first line with the format and each distinct set of
 * ids a file was searched for, then a file a line. A file that cannot be read as that is read as
 * none: every graph file is searched again.
 */

export const SCANS_NAME = 'links/scans';
const SCANS_FILE = 'links/scans.json';
const FORMAT = 'weave-link-scans/1';

/** A reference to a record of another session, as a graph file states it (its graph is the file's session). */
export interface PendingReference {
  node: Term;
  graph: string;
  from?: Term;
  property?: Term;
  id?: string;
}

/**
 * What was found in one graph file: the references it holds (pass 1) and, of the ids searched
 * for, where each is an event (pass 2), up to `bytes`.
 */
export interface FileScan {
  bytes: number;
  references?: PendingReference[];
  searched: Set<string>;
  hits: Map<string, Term[]>;
}

/** A file's line: its name, bytes, references ([node, from, property, id]), the index of its searched set, its hits. */
type ScanLine = [string, number, [string, string | null, string | null, string | null][] | null, number, [string, string[]][]];

/** The scans the store keeps, by graph file name; empty when it keeps none (or none this Weave reads). */
export async function readScans(dir: string, entry: NamedFile | undefined): Promise<Map<string, FileScan>> {
  const scans = new Map<string, FileScan>();
  if (!entry) return scans;
  try {
    let sets: Set<string>[] = [];
    for await (const { text, lineNo } of readLines(join(dir, entry.file))) {
      if (!text) continue;
      if (lineNo === 1) {
        const head = JSON.parse(text) as { format?: unknown; searched?: string[][] };
        if (head.format !== FORMAT) return new Map();
        sets = (head.searched ?? []).map((ids) => new Set(ids));
        continue;
      }
      const [file, bytes, references, set, hits] = JSON.parse(text) as ScanLine;
      scans.set(file, {
        bytes,
        references: references?.map(([node, from, property, id]) => ({
          node: node as Term,
          graph: '',
          ...(from === null ? {} : { from: from as Term }),
          ...(property === null ? {} : { property: property as Term }),
          ...(id === null ? {} : { id }),
        })),
        searched: sets[set] ?? new Set(),
        hits: new Map(hits.map(([id, events]) => [id, events as Term[]])),
      });
    }
    return scans;
  } catch {
    // Unreadable or not this format: searched again, and written anew.
    return new Map();
  }
}

/** Writes `scans` through the store writer, in place of those it kept. */
export async function writeScans(store: StoreWriter, scans: ReadonlyMap<string, FileScan>): Promise<void> {
  // Most files were searched for the same ids: each set is written once.
  const sets = new Map<string, number>();
  const setOf = (searched: Set<string>) => {
    const key = JSON.stringify([...searched].sort());
    return sets.get(key) ?? sets.set(key, sets.size).get(key)!;
  };
  const lines: string[] = [];
  for (const [file, scan] of scans) {
    const references = scan.references?.map((r) => [r.node, r.from ?? null, r.property ?? null, r.id ?? null]) ?? null;
    lines.push(`${JSON.stringify([file, scan.bytes, references, setOf(scan.searched), [...scan.hits]])}\n`);
  }
  const head = `${JSON.stringify({ format: FORMAT, searched: [...sets.keys()].map((key) => JSON.parse(key)) })}\n`;
  await store.writeFile(SCANS_NAME, SCANS_FILE, [head, ...lines], { builtWith: FORMAT });
}
