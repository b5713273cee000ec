import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads';

/**
 * Staying awake between short jobs. A thread asleep in the kernel takes tens of microseconds to
 * wake (an interrupt to another core, more in a virtual machine), and a point query is answered
 * in about 150 µs: asleep, the server's thread and the query worker each paid a wake-up per
 * request, which made a point query at one connection 0.6× a bare route's. So while jobs are
 * short, both wait awake for a moment: the worker polls its port after an answer, the server's
 * event loop keeps turning while a short job runs. Neither lasts past the moment: an idle server
 * sleeps, and a long job never keeps the server's thread spinning.
 */

/** A job shorter than this is short: the thread waiting on it stays awake (ms). */
export const SHORT_JOB_MS = 20;
/** How long a worker polls its port after answering a short job (ms). */
const WORKER_AWAKE_MS = 0.3;
/** How long the server's event loop keeps turning after a short job's answer (ms). */
const SERVER_AWAKE_MS = 0.1;
/** A job sent this soon after an answer is in a run of jobs: the loop stays awake while it runs (ms). */
const IN_A_RUN_MS = 1;

/**
 * In a query worker, after it answered a short job: polls `port` for the next message for a
 * moment and hands it to `take`, as a 'message' event would; returns at once when none comes.
 */
export function awaitNextAwake(port: MessagePort, take: (message: unknown) => void, ms = WORKER_AWAKE_MS): void {
  const until = performance.now() + ms;
  do {
    const received = receiveMessageOnPort(port);
    if (received) {
      take(received.message);
      return;
    }
  } while (performance.now() < until);
}

/**
 * On the server's thread: keeps the event loop turning (an immediate queued, so it polls for I/O
 * without sleeping) for `SERVER_AWAKE_MS` after an answer, and while a short job runs that came
 * in a run of them (under `IN_A_RUN_MS` after the last answer; a lone query is waited for asleep,
 * as it gains nothing). Sockets, timers and worker messages are served meanwhile as ever.
 */
export class AwakeLoop {
  private until = 0;
  private on = false;
  private lastAnswer = Number.NEGATIVE_INFINITY;

  /** `running`: whether a short job runs now. */
  constructor(private readonly running: () => boolean) {}

  /** Whether the loop is kept turning now. */
  get turning(): boolean {
    return this.on;
  }

  /** A job was sent to a worker. */
  started(): void {
    if (performance.now() - this.lastAnswer < IN_A_RUN_MS) this.keep();
  }

  /** A worker answered a job. */
  answered(): void {
    this.lastAnswer = performance.now();
    this.keep();
  }

  private keep(): void {
    this.until = performance.now() + SERVER_AWAKE_MS;
    if (this.on) return;
    this.on = true;
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    if (performance.now() < this.until || this.running()) setImmediate(this.turn);
    else this.on = false;
  };
}
