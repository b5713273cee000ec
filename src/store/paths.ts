import { homedir, platform } from 'node:os';
import { join } from 'node:path';

/** `--store`, else `$WEAVE_HOME`, else the platform's data directory. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEAVE_HOME) return env.WEAVE_HOME;
  switch (platform()) {
    case 'darwin':
      return join(homedir(), 'Library', 'Application Support', 'weave');
    case 'win32':
      return join(env.LOCALAPPDATA ?? join(homedir(), 'AppData', 'Local'), 'weave');
    default:
      return join(env.XDG_DATA_HOME ?? join(homedir(), '.local', 'share'), 'weave');
  }
}
