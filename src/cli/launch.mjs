// The command line's entry (bin/weave runs it with plain node). Bringing in tsx costs some 0.7 s
// before any work, most of a second's budget, so `weave query` with a server up is answered by a
// compiled copy of src/client/fast.ts first; everything else runs the TypeScript CLI through tsx.
import { compiled } from './compiled.mjs';

const argv = process.argv.slice(2);
const fast = argv[0] === 'query' ? await compiled(new URL('../client/fast.ts', import.meta.url)) : undefined;
const quick = fast ? await fast.answerQuickly(argv) : undefined;
if (quick !== undefined) process.exitCode = quick;
else {
  const { register } = await import('tsx/esm/api');
  register();
  const { run } = await import('./main.ts');
  process.exitCode = await run(argv);
}
