import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Errors nobody handles (an unhandled rejection, an exception thrown in a callback) raised by
 * a library a job runs: Comunica, in a federated query, left some of its sources' errors so (a
 * triple term or an invalid IRI an endpoint bound, joined with the store; an answer cut off
 * mid-body: each is now handled where it arises, but others may come). Unhandled, each ended
 * the query worker and its copy of the store (500 "the query worker crashed", then tens of
 * seconds to open another), or `weave query` with a stack trace. Here such an error fails the
 * job it came from; the thread and its copy carry on, and the command tells it in one line.
 *
 * The job is known by the async context the error was raised in, so an error that comes after
 * its job was failed or answered (a job's pipeline goes on after its first error) is dropped
 * rather than blamed on the next job. An error from no job's context fails the contained job
 * running now, if any; otherwise it ends the thread, as before: nothing says what it broke.
 */

interface Containment {
  /** Fails the job with `error`, once; after the job has settled, does nothing. */
  fail(error: unknown): void;
}

const context = new AsyncLocalStorage<Containment>();
/** The contained job running now (a worker runs one job at a time). */
let running: Containment | undefined;
let installed = false;

/**
 * Runs `job` so that an error it leaves unhandled fails it with `failure(error)`: its promise
 * settles at the first such error even when the job's own never does.
 */
export function contained<T>(job: () => Promise<T>, failure: (error: unknown) => unknown): Promise<T> {
  install();
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const containment: Containment = {
      fail(error) {
        if (settled) return;
        settled = true;
        if (running === containment) running = undefined;
        reject(failure(error));
      },
    };
    const end = (then: () => void) => {
      if (settled) return;
      settled = true;
      if (running === containment) running = undefined;
      then();
    };
    running = containment;
    context.run(containment, () => {
      job().then(
        (value) => end(() => resolve(value)),
        (error) => end(() => reject(error)),
      );
    });
  });
}

function install(): void {
  if (installed) return;
  installed = true;
  const stray = (error: unknown) => {
    const owner = context.getStore() ?? running;
    // Thrown again, it ends the thread as it would have without this handler.
    if (!owner) throw error;
    owner.fail(error);
  };
  process.on('uncaughtException', stray);
  process.on('unhandledRejection', stray);
}
