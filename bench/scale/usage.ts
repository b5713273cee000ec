import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The usage step: `weave usage daily --json` on the store against `ccusage daily --json` on the
 * folders it was built from, each timed by /usr/bin/time, with the totals each reports. Days are
 * UTC for both.
 */

export interface UsageRun {
  /** "pending" when this checkout has no `weave usage` yet. */
  status: 'ok' | 'failed' | 'pending';
  wallMs?: number;
  cpuMs?: number;
  peakRssMiB?: number;
  totals?: Record<string, number>;
  days?: number;
}

const WEAVE = fileURLToPath(new URL('../../bin/weave', import.meta.url));
const CCUSAGE = fileURLToPath(new URL('../../node_modules/ccusage/dist/index.js', import.meta.url));

export function weaveUsage(storeDir: string): Promise<UsageRun> {
  // The command opening the store itself at each scale (no resident server left behind per step).
  return timed([WEAVE, 'usage', 'daily', '--json', '--no-daemon', '--store', storeDir], {}, (stderr) =>
    /unknown command|no command|usage: weave <command>/i.test(stderr),
  );
}

export function ccusage(configDirs: string[]): Promise<UsageRun> {
  return timed([process.execPath, CCUSAGE, 'daily', '--json', '--offline'], { CLAUDE_CONFIG_DIR: configDirs.join(',') });
}

function timed(command: string[], env: NodeJS.ProcessEnv, missing?: (stderr: string) => boolean): Promise<UsageRun> {
  return new Promise((resolve) => {
    const child = spawn('/usr/bin/time', ['-f', 'TIME %e %U %S %M', ...command], {
      env: { ...process.env, TZ: 'UTC', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('exit', (code) => {
      const time = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
      const measured = time
        ? { wallMs: Number(time[1]) * 1000, cpuMs: (Number(time[2]) + Number(time[3])) * 1000, peakRssMiB: Number(time[4]) / 1024 }
        : {};
      if (code !== 0) return resolve({ status: missing?.(stderr) ? 'pending' : 'failed', ...measured });
      try {
        const json = JSON.parse(stdout) as { daily?: unknown[]; totals?: Record<string, number> };
        resolve({ status: 'ok', ...measured, totals: json.totals, days: json.daily?.length });
      } catch {
        resolve({ status: 'failed', ...measured });
      }
    });
  });
}
