import { fileURLToPath } from 'node:url';
import { runTimed } from './timed.ts';

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

async function timed(command: string[], env: NodeJS.ProcessEnv, missing?: (stderr: string) => boolean): Promise<UsageRun> {
  const { code, stdout, stderr, stdoutBytes: _bytes, stdoutLines: _lines, ...measured } = await runTimed(command, env);
  if (code !== 0) return { status: missing?.(stderr) ? 'pending' : 'failed', ...measured };
  try {
    const json = JSON.parse(stdout) as { daily?: unknown[]; totals?: Record<string, number> };
    return { status: 'ok', ...measured, totals: json.totals, days: json.daily?.length };
  } catch {
    return { status: 'failed', ...measured };
  }
}
