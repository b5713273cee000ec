import { spawn } from 'node:child_process';

/** A command's run as /usr/bin/time measured it: wall, CPU (user + system) and peak RSS of the command and its children. */
export interface TimedRun {
  code: number | null;
  wallMs?: number;
  cpuMs?: number;
  peakRssMiB?: number;
  stdout: string;
  /** Bytes and lines written to stdout (kept or not). */
  stdoutBytes: number;
  stdoutLines: number;
  stderr: string;
}

/** Line ends in `bytes`. */
export function newlines(bytes: Uint8Array): number {
  let n = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, i + 1)) n++;
  return n;
}

/**
 * Runs `command` under /usr/bin/time, its stdout kept (`keepStdout: false` counts it only, for
 * answers of hundreds of MB). Past `capMs` the command and its children are stopped (its code is then
 * null, with no figures).
 */
export function runTimed(command: string[], env: NodeJS.ProcessEnv = {}, keepStdout = true, capMs?: number): Promise<TimedRun> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %U %S %M', ...command], {
      env: { ...process.env, TZ: 'UTC', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, so that a cap stops the command too, not /usr/bin/time alone.
      detached: capMs !== undefined,
    });
    const cap = capMs === undefined ? undefined : setTimeout(() => process.kill(-child.pid!, 'SIGTERM'), capMs);
    let stdout = '';
    let stdoutBytes = 0;
    let stdoutLines = 0;
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdoutBytes += d.length;
      stdoutLines += newlines(d);
      if (keepStdout) stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
    child.once('close', (code) => {
      clearTimeout(cap);
      const time = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      const measured = time
        ? { wallMs: Number(time[1]) * 1000, cpuMs: (Number(time[2]) + Number(time[3])) * 1000, peakRssMiB: Number(time[4]) / 1024 }
        : {};
      resolve({ code, ...measured, stdout, stdoutBytes, stdoutLines, stderr: stderr.replace(/TIME [\d. ]+\n?$/, '') });
    });
  });
}
