import { parentPort, workerData } from 'node:worker_threads';
import { alignTurns } from '../../align/ravel.ts';
import { capacityNotice, LOAD_CEILING } from '../../store/ceiling.ts';
import { openStore, type OxStore } from '../../store/store.ts';
import { HttpError } from '../errors.ts';
import type { ChangedGraph, FromWorker, Job, JobResult, ToWorker, WorkerInit } from '../messages.ts';
import { datasetStats } from '../dataset-stats.ts';
import { describeData } from '../description.ts';
import { describeGraphJob } from './operations/describe.ts';
import { readGraphJob, writeGraphJob } from './operations/graph-store.ts';
import { applySavedGraphs, GraphDigests, persistGraphs, reloadGraph } from './operations/persist.ts';
import { runFederatedJob, runQueryJob } from './operations/query.ts';
import { graphsNamed } from '../../query/lexer.ts';
import { defaultGraphEmpty } from '../../query/run.ts';
import { PREFIXES } from '../../rdf/vocab.ts';
import { Restatements } from '../../store/restated.ts';
import { storeSelect } from './operations/rows.ts';
import { isTrap, trapMessage } from '../../query/traps.ts';
import { runUpdateJob } from './operations/update.ts';
import { awaitNextAwake, SHORT_JOB_MS } from './awake.ts';
import { contained } from '../../federation/strays.ts';
import { unrecordedIn } from './unrecorded.ts';
import { DEFAULT_GRAPH_KEY } from '../../store/manifest.ts';

/**
 * A query worker (runs in its own thread, started by pool.ts): owns one in-memory copy of the
 * store (from its start, or from an `open` message when it was booted as a standby) and runs one
 * job at a time, off the server's event loop, so the server can cut a runaway query off by ending
 * this thread. The operations it runs are in operations/; the describe page's data and the dataset
 * counts, which an external store's backend computes too, are read through `storeSelect`.
 */

const { storeDir, soul, open, unrecorded, notLoaded } = workerData as WorkerInit;
const port = parentPort!;
const digests = new GraphDigests();
let store: OxStore;
/** The store's size, kept as graphs are reloaded: `store.size` is a pass over the whole store. */
let quads = 0;
/**
 * Whether the store's own default graph is empty (the union is then read as a set, see
 * src/query/run.ts): only a write or a reload can change it, so it is asked once after each,
 * not once per query.
 */
let defaultEmpty = true;
/**
 * The copies of triples several graphs state, set aside so the union is a set without a rewrite
 * (src/store/restated.ts); undefined once the store was written to, or when it is too large for the
 * one grouping that finds them: the union is then read through the rewrite.
 */
let restated: Restatements | undefined;
/** Past this many quads the grouping that finds shared triples is not tried (its table lives in WebAssembly memory). */
const SET_ASIDE_MAX_QUADS = 3_000_000;
/** Graphs whose last change did not load: left out of this copy until one does (persist.ts `reloadGraph`). */
const failed = new Set<string | null>();
/** Whether the store reached what one embedded copy holds (said once). */
let full = false;
/** Written to: held whole from then on, never set aside again. */
let written = false;

const post = (message: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

/**
 * Opens the copy: the manifest's graphs, then `unrecorded`, the changes told of that it may not name
 * yet. Of `notLoaded`, the graphs the copies open left out, those that still do not load are left out
 * here too: the endpoint goes on answering, each copy as the others.
 */
async function init(unrecorded: ChangedGraph[], notLoaded: (string | null)[]): Promise<void> {
  let last = 0;
  const opened = await openStore(storeDir, {
    onProgress: (quads, of) => {
      // A few messages a second at most: the pool only shows them.
      if (performance.now() - last < 200) return;
      last = performance.now();
      post({ type: 'progress', quads, of });
    },
    leaveOut: (key, e) => {
      const graph = key === DEFAULT_GRAPH_KEY ? null : key;
      if (!notLoaded.includes(graph)) return false;
      failed.add(graph);
      post({ type: 'graph-failed', graph, problem: e.message });
      return true;
    },
  });
  store = opened.store;
  await applySavedGraphs(store, storeDir, opened.manifest);
  quads = store.size;
  await load(unrecordedIn(opened.manifest, unrecorded));
  // Those that load now (a good version came while no copy was open to hear of it) need no
  // attention; said after the changes told of, one of which may be the version that does not load.
  for (const graph of notLoaded) if (!failed.has(graph)) post({ type: 'graph-loaded', graph });
  // A standby opened beside a long job (perhaps a runaway about to be cut) says it is ready first:
  // setting aside is a third of its opening on the corpus. The pool asks for it once the copy is
  // the one kept and nothing runs long; until then its union is read through the rewrite, with
  // the same answers.
  if (!asStandby) setAside();
  post({ type: 'ready', quads });
}

function setAside(): void {
  if (!restated && !written && defaultEmpty && quads <= SET_ASIDE_MAX_QUADS) restated = Restatements.setAsideIn(store);
}

async function run(id: number, job: Job): Promise<JobResult> {
  switch (job.op) {
    case 'query': {
      // Comunica leaves some errors unhandled: they fail this job, not the thread (strays.ts). A
      // trap stays one (this copy is replaced); of others only the kind is said: the message may
      // quote the data.
      if (job.federation)
        return whole('all', () =>
          contained(
            () => runFederatedJob(store, job),
            (e) =>
              isTrap(e)
                ? e
                : new HttpError(
                    500,
                    `the federated query failed inside Comunica (${(e as Error)?.name ?? typeof e}); the server is still up`,
                  ),
          ),
        );
      const named = job.defaultGraphs?.length || job.namedGraphs?.length ? 'all' : graphsNamed(job.query, PREFIXES, job.baseIri);
      if (restated && named !== 'all' && !named.length) return runQueryJob(store, job, { set: true });
      return whole(named, async () => runQueryJob(store, job, { defaultGraphEmpty: defaultEmpty }));
    }
    case 'graph-read':
      return whole(job.graph === null ? [] : [job.graph], async () => readGraphJob(store, job));
    case 'stats':
      return whole('all', async () => ({ status: 200, data: await datasetStats(storeSelect(store), store.size) }));
    case 'describe':
      return whole('all', async () =>
        job.accept.length ? describeGraphJob(store, job) : { status: 200, data: await describeData(storeSelect(store), job.iri) },
      );
    case 'update':
    case 'graph-write': {
      // A store written to is held whole from then on: what a write reads and saves is every graph as it is.
      restated?.restoreAll(store);
      restated = undefined;
      written = true;
      const before = digests.before(store);
      let result: JobResult = { status: 204 };
      // Oxigraph applies an update whole or not at all (a failing LOAD after an INSERT DATA leaves
      // the store as it was), and a Graph Store payload is parsed on the side first: a write that
      // fails here has changed nothing to save.
      if (job.op === 'update') runUpdateJob(store, job);
      else result = writeGraphJob(store, job);
      defaultEmpty = defaultGraphEmpty(store);
      post({ type: 'persisting', id });
      // A write changes the store's size by what it did, which only the whole count says.
      quads = store.size;
      return { ...result, changed: await persistGraphs(storeDir, soul, digests.after(store, before)) };
    }
  }
}

/** Loads graphs that changed on disk, in the order they changed. */
async function load(changes: ChangedGraph[]): Promise<void> {
  for (const change of changes) {
    // One embedded copy loads no more than LOAD_CEILING: past it new graphs wait for an external store.
    if (change.files.length && quads >= LOAD_CEILING) {
      if (!full) process.stderr.write(`weave serve: ${capacityNotice({ quads, transcriptBytes: 0 })} New sessions are not loaded.\n`);
      full = true;
      continue;
    }
    digests.forget(change.graph);
    if (change.graph !== null) restated?.release(store, change.graph);
    const { grew, problem } = await reloadGraph(store, storeDir, change);
    quads += grew;
    if (problem !== undefined) {
      failed.add(change.graph);
      post({ type: 'graph-failed', graph: change.graph, problem });
      continue;
    }
    if (failed.delete(change.graph)) post({ type: 'graph-loaded', graph: change.graph });
    if (change.graph && change.files.length) quads += alignTurns(store, soul, change.graph);
    if (change.graph !== null) restated?.settle(store, change.graph);
  }
  defaultEmpty = defaultGraphEmpty(store);
  if (!defaultEmpty) {
    restated?.restoreAll(store);
    restated = undefined;
  }
}

/** Runs a job that reads graphs by name with their set-aside copies back in them. */
function whole<T>(graphs: string[] | 'all', job: () => Promise<T>): Promise<T> {
  return restated ? restated.withRestoredWhile(store, graphs, job) : job();
}

async function handle(message: Exclude<ToWorker, { type: 'open' } | { type: 'set-aside' }>): Promise<void> {
  if (message.type === 'reload') {
    await load(message.graphs);
    post({ type: 'reloaded', quads });
    return;
  }
  const { id, job } = message;
  try {
    const began = performance.now();
    const result = await run(id, job);
    // A write that changed the store says its size, as a reload does: no other copy may be open to say it.
    post({ type: 'done', id, result, ...(result.changed?.length && { quads }) }, result.body ? [result.body.buffer as ArrayBuffer] : []);
    // Short jobs come in runs: the next may be on its way (awake.ts).
    if (performance.now() - began < SHORT_JOB_MS) awaitNextAwake(port, (m) => take(m as ToWorker));
  } catch (e) {
    if (e instanceof HttpError) post({ type: 'failed', id, status: e.status, message: e.message, headers: e.headers });
    else if (isTrap(e))
      // A trap: the store ran out of what it can compute at this size. The sender is told which of
      // its queries and the way on (507, as for a worker's heap); the pool replaces this worker.
      post({
        type: 'failed',
        id,
        status: 507,
        message: trapMessage(queryOf(job), e, 'The server is still up and opens a fresh copy of the store.'),
        fatal: true,
      });
    else {
      // Never the message: it may quote the query or the data. The kind of failure is enough.
      const fatal = job.op === 'update' || job.op === 'graph-write';
      post({ type: 'failed', id, status: 500, message: `the ${job.op} failed inside the store (${(e as Error)?.name ?? 'error'})`, fatal });
    }
  }
}

/** Opened by an `open` message: a standby, which sets shared triples aside only when told. */
let asStandby = false;
const opening = (unrecorded: ChangedGraph[] = [], notLoaded: (string | null)[] = []) =>
  init(unrecorded, notLoaded).catch((e) => {
    post({ type: 'init-failed', message: (e as Error).message });
    process.exit(1);
  });
// A standby is booted (tsx and Oxigraph loaded) but holds no store until it is told to open it.
let chain: Promise<void> = open ? opening(unrecorded, notLoaded) : Promise.resolve(post({ type: 'booted' }));
function take(message: ToWorker): void {
  if (message.type === 'open') asStandby = true;
  chain = chain.then(() =>
    message.type === 'open' ? opening(message.unrecorded, message.notLoaded) : message.type === 'set-aside' ? setAside() : handle(message),
  );
}
port.on('message', take);

/** The query a job runs, to name it in a trap's message. */
function queryOf(job: Job): string | undefined {
  return job.op === 'query' ? job.query : job.op === 'update' ? job.update : undefined;
}
