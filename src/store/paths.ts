import { homedir, platform } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * `--store`, else `$WEAVE_HOME`, else the platform's data directory. A base directory variable
 * that is empty or relative is ignored, as the XDG Base Directory specification says.
 */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEAVE_HOME) return env.WEAVE_HOME;
  const base = (name: string) => {
    const value = env[name];
    return value && isAbsolute(value) ? value : undefined;
  };
  switch (platform()) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'weave');
    case 'win32':
      return join(base('LOCALAPPDATA') ?? join(homedir(), 'AppData', 'Local'), 'weave');
    default:
      return join(base('XDG_DATA_HOME') ?? join(homedir(), '.local', 'share'), 'weave');
  }
}
