import { parentPort, workerData } from 'node:worker_threads';
import { ingest } from '../../ingest.ts';
import type { DetectedGraph, DetectProblem } from '../../readers/detect.ts';
import { READERS } from '../../readers/registry.ts';
import { filesOf } from '../../store/manifest.ts';
import type { FromIngest, IngestWorkerInit, ToIngest } from '../messages.ts';
import { dialectAt } from '../../dialect/index.ts';

/**
 * The ingest thread (started by ingester.ts): ingest in its own thread, so reading a large
 * corpus never stalls the server. Each run reads the sources again (unchanged sessions are
 * skipped by size and mtime), then runs the readers where a session graph changed, as
 * `weave ingest` does (as derivations of the same run), and reports every graph it rewrote, so the query workers can load just
 * that graph.
 */

const { paths, storeDir, soul, content, detect: runReaders, archive, dialects: modules } = workerData as IngestWorkerInit;
const port = parentPort!;
const post = (m: FromIngest) => port.postMessage(m);
// Objects do not cross threads: each dialect is loaded again here, from its module.
const loading = modules && Promise.all(modules.map(dialectAt));
loading?.catch(() => undefined); // a module that fails to load fails each run, which reports it

const onGraph = (g: DetectedGraph) => post({ type: 'session', graph: g.graph, files: filesOf(g.entry) });
// A reader's message may quote what it read; which session and reader is enough.
const onProblem = (p: DetectProblem) => post({ type: 'reader-problem', sessionId: p.sessionId ?? '', reader: p.derivation });

/** Runs begun so far: every run after the first is a pass of live reading. */
let runs = 0;

async function runOnce(withReaders: boolean): Promise<void> {
  const live = runs++ > 0;
  let last = 0;
  try {
    const dialects = await loading;
    // Problems (the readers' too) may quote what they read: each travelled on its own above, never in the report.
    const {
      problems: _problems,
      readers: _readers,
      ...report
    } = await ingest(paths, {
      storeDir,
      soul,
      content,
      dialects,
      archive,
      live,
      onProgress: (progress) => {
        const now = performance.now();
        if (now - last < 100 && progress.sessionsDone < progress.sessionsTotal) return;
        last = now;
        post({ type: 'progress', progress: { ...progress } });
      },
      // The problem's message can quote the line; only where it is travels on.
      onProblem: (p) => post({ type: 'problem', path: p.path, lineNo: p.lineNo, kind: p.kind }),
      onNote: (note) => post({ type: 'note', note }),
      onSession: (_session, graph, stored) => {
        post({ type: 'session', graph, files: filesOf(stored.entry), delta: stored.delta });
      },
      onGraph: (graph, entry) => post({ type: 'session', graph, files: entry ? filesOf(entry) : [] }),
      // The readers read each session as it is written; detect then reruns them where a reader changed.
      readers: withReaders ? { list: READERS, onGraph, onProblem } : undefined,
    });
    post({ type: 'done', report });
  } catch (e) {
    post({ type: 'error', message: (e as Error).message });
  }
}

let chain = Promise.resolve();
port.on('message', (m: ToIngest) => {
  if (m.type === 'run') chain = chain.then(() => runOnce(runReaders && m.detect !== false));
});
