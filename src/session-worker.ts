import { parentPort, workerData } from 'node:worker_threads';
import type { AnySessionDerivation, Derivation } from './derive/derivation.ts';
import { derivationLoop, recordDerivations, type ToldGraph } from './derive/loop.ts';
import { derivationsOf, readTapped } from './ingest.ts';
import { READERS } from './readers/registry.ts';
import { carried, type PooledRead, type PoolInit, type SessionJob } from './session-pool.ts';
import { SessionFailure, StoreFailure, type ReadTally } from './session-read.ts';
import { sessionWriter } from './store/writer.ts';
import { dialectAt } from './dialect/index.ts';

/**
 * A reading thread of the session pool (session-pool.ts): reads each session it is handed into its
 * graph files and runs its session derivations, then sends back what its writer recorded, for the
 * run's writer to adopt. The derivations are the registry's, as the run chose them by name.
 */

const init = (workerData as { init: PoolInit }).init;
const port = parentPort!;
const dialects = new Map(
  await Promise.all(
    init.dialects.map(async (url) => {
      const dialect = await dialectAt(url);
      return [dialect.id, dialect] as const;
    }),
  ),
);
const readers = init.readers.map((name) => READERS.find((r) => r.name === name)!);
// A derivation's `begin` (a reader describing itself) is the run's, once: never a worker's.
const list: Derivation[] = derivationsOf({ search: init.search, readers: { list: readers } }).map((d) =>
  typeof d.reads === 'object' ? ({ ...d, begin: undefined } as AnySessionDerivation) : d,
);
const records = recordDerivations(list);

port.on('message', async (job: SessionJob) => {
  port.postMessage(await readOne(job));
});

async function readOne({ target: { dialect, session, ...target }, view }: SessionJob): Promise<PooledRead> {
  const writer = sessionWriter(init.storeDir, init.soul, view);
  const told: ToldGraph[] = [];
  const loop = derivationLoop(writer, list, {
    onGraph: (graph, entry, by) => void told.push({ graph, entry, by }),
    largeSession: init.largeSession,
  });
  const tally: ReadTally = { files: 0, records: 0, bytes: 0, archived: 0, problems: [] };
  const notes: string[] = [];
  const source = { ...session, dialect: dialects.get(dialect)! };
  const done = (more: Partial<PooledRead>): PooledRead => {
    const { problems, ...counts } = tally;
    return { recorded: writer.takeRecorded(), tally: counts, problems, notes, derived: loop.report, told, ...more };
  };
  try {
    const { read, tap } = await readTapped(
      {
        writer,
        loop,
        records,
        tally,
        options: {
          storeDir: init.storeDir,
          soul: init.soul,
          content: init.content,
          writtenBy: init.writtenBy,
          onNote: (n) => notes.push(n),
        },
      },
      { ...target, session: source },
    );
    await loop.session({ sessionId: source.sessionId, graph: target.graph, entry: read.entry }, tap);
    return done({ read });
  } catch (e) {
    if (e instanceof SessionFailure) return done({ failure: { path: e.path, lineNo: e.lineNo, cause: carried(e.cause) } });
    return done({ storeFailure: carried(e instanceof StoreFailure ? e.cause : e) });
  }
}
