import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * Each step of the scale bench runs in a process of its own, so its peak RSS and WebAssembly
 * memory are its own. A step script prints one JSON object per line on stdout, one per figure
 * it measured; `measure` is what every script calls to time a phase by the wall and by the CPU.
 */

export type Line = Record<string, unknown> & { step: string };

export interface Child {
  process: ChildProcess;
  /** Resolves with the exit code (null when killed). */
  exited: Promise<number | null>;
  /** The next line whose `step` is `step`, or undefined when the child exits or is silent for `silenceMs`. */
  next(step: string, silenceMs: number): Promise<Line | undefined>;
  /** Once the child has ended: how (exit code or signal) and the last line of its stderr; undefined while it runs. */
  death(): string | undefined;
  stop(): Promise<void>;
}

/** Starts `script` (a .ts file under bench/scale, or a file URL) with tsx; stderr is kept for the error message. */
export function startChild(script: string | URL, args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const path = (typeof script === 'string' ? new URL(`./${script}`, import.meta.url) : script).pathname;
  const child = spawn(process.execPath, ['--import', 'tsx', path, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  const lines: Line[] = [];
  const waiting: (() => void)[] = [];
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  createInterface({ input: child.stdout! }).on('line', (text) => {
    if (!text.startsWith('{')) return;
    lines.push(JSON.parse(text) as Line);
    for (const wake of waiting.splice(0)) wake();
  });
  let done = false;
  let how: string | undefined;
  // 'close', not 'exit': every line the child wrote has been read by then. `done` is set before
  // the waiters wake, so a waiter sees the child gone at once instead of waiting out its silence.
  const exited = new Promise<number | null>((resolve) =>
    child.once('close', (code, signal) => {
      done = true;
      how = `${signal ? `killed by ${signal}` : `exited with ${code}`}: ${why(stderr)}`;
      if (code) process.stderr.write(`bench: ${script} exited with ${code}: ${stderr.trim().split('\n').slice(-6).join('\n')}\n`);
      for (const wake of waiting.splice(0)) wake();
      resolve(code);
    }),
  );
  return {
    process: child,
    exited,
    async next(step, silenceMs) {
      for (;;) {
        const i = lines.findIndex((l) => l.step === step);
        if (i !== -1) return lines.splice(i, 1)[0];
        if (done) return undefined;
        const woke = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), silenceMs);
          waiting.push(() => {
            clearTimeout(timer);
            resolve(true);
          });
        });
        if (!woke) return undefined;
      }
    },
    death: () => how,
    async stop() {
      if (!done) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The line of a dead process's stderr that says why: its error, not Node's version line or a stack frame. */
function why(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^at |^Node\.js v|^\^+$/.test(l));
  return lines.findLast((l) => /^\w*Error\b|unreachable|out of memory/i.test(l)) ?? lines.at(-1) ?? '';
}

export interface Measured {
  wallMs: number;
  cpuMs: number;
}

/** Runs `work`, timing it by the wall and by this process's CPU (all threads). */
export async function measure<T>(work: () => Promise<T> | T): Promise<Measured & { value: T }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const value = await work();
  const used = process.cpuUsage(cpu);
  return { value, wallMs: performance.now() - t0, cpuMs: (used.user + used.system) / 1000 };
}

/** Peak RSS of this process so far, in MiB. */
export function peakRssMiB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

/** Prints one figure line for the bench to read. */
export function report(line: Line): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
