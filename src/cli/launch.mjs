// The command line's entry (bin/weave runs it with plain node). Bringing in tsx costs some 0.7 s
// before any work, most of a second's budget, so `weave query` with a server up is answered by a
// compiled copy of src/client/fast.ts first, and `weave usage` on prepared rows by one of
// src/cli/usage.ts; everything else runs the TypeScript CLI through tsx.
import { compiled } from './compiled.mjs';

const QUICK = { query: '../client/fast.ts', usage: './usage.ts' };
const argv = process.argv.slice(2);
const fast = Object.hasOwn(QUICK, argv[0]) ? await compiled(new URL(QUICK[argv[0]], import.meta.url)) : undefined;
const quick = !fast
  ? undefined
  : argv[0] === 'usage'
    ? await fast.answerQuickly(argv.slice(1), new URL('../../data/prices.json', import.meta.url))
    : await fast.answerQuickly(argv);
if (quick !== undefined) process.exitCode = quick;
else {
  const { register } = await import('tsx/esm/api');
  register();
  const { run } = await import('./main.ts');
  process.exitCode = await run(argv);
}
