// The command line's entry (bin/weave runs it with plain node). Bringing in tsx costs some 0.7 s
// before any work, most of a second's budget. So `weave usage` on prepared rows is answered by a
// compiled copy of src/cli/usage.ts with no store opened at all, and a command that reads the
// store (weave query, usage, …) by the store's server through a compiled copy of
// src/client/fast.ts; everything else, and whatever they leave, runs the built copy of the
// TypeScript command line (src/cli/compiled.mjs), or through tsx where it cannot be built.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compiled, program } from './compiled.mjs';
import { watchExit } from './exit-watch.mjs';

/** The commands client/fast.ts answers (its SERVED_COMMANDS): only they pay for loading it. */
const SERVED = new Set(['query', 'usage', 'search', 'conversation', 'status']);

// A reader that stops early (`weave query … | head`) closes the pipe: the command ends there,
// quietly, as ripgrep does, where Node would throw EPIPE with a stack trace. What it had to say
// past that point no one reads.
process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

const argv = process.argv.slice(2);
let quick;
if (argv[0] === 'usage') {
  const rows = await compiled(new URL('./usage.ts', import.meta.url));
  // A bundle that cannot be built or loaded here leaves the command to the TypeScript CLI.
  quick = await rows?.answerQuickly(argv.slice(1), new URL('../../data/prices.json', import.meta.url));
}
if (quick === undefined && SERVED.has(argv[0])) {
  const fast = await compiled(new URL('../client/fast.ts', import.meta.url));
  quick = await fast?.answerQuickly(argv, fileURLToPath(import.meta.url));
}
if (quick !== undefined) process.exitCode = quick;
else {
  // A failure's stack (--verbose) names the TypeScript sources' lines, not the built copy's, in
  // this thread and (told by the environment, which they are given) in those it starts.
  if (argv.includes('--verbose')) {
    process.setSourceMapsEnabled(true);
    process.env.WEAVE_SOURCE_MAPS = '1';
  }
  const built = await program(new URL('./main.ts', import.meta.url));
  let run;
  if (built) ({ run } = await import(pathToFileURL(built).href));
  else {
    const { register } = await import('tsx/esm/api');
    register();
    ({ run } = await import('./main.ts'));
  }
  process.exitCode = await run(argv);
  watchExit(process.exitCode);
}
