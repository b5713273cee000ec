// The command line's entry (bin/weave runs it with plain node). Bringing in tsx costs some 0.7 s
// before any work, most of a second's budget, so a command that reads the store (weave query,
// usage, …) is answered by the store's server through a compiled copy of src/client/fast.ts
// first; everything else, and whatever it leaves, runs the TypeScript CLI through tsx.
import { fileURLToPath } from 'node:url';
import { compiled } from './compiled.mjs';

/** The commands client/fast.ts answers (its SERVED_COMMANDS): only they pay for loading it. */
const SERVED = new Set(['query', 'usage', 'search', 'conversation', 'status']);

const argv = process.argv.slice(2);
const fast = SERVED.has(argv[0]) ? await compiled(new URL('../client/fast.ts', import.meta.url)) : undefined;
const quick = fast ? await fast.answerQuickly(argv, fileURLToPath(import.meta.url)) : undefined;
if (quick !== undefined) process.exitCode = quick;
else {
  const { register } = await import('tsx/esm/api');
  register();
  const { run } = await import('./main.ts');
  process.exitCode = await run(argv);
}
