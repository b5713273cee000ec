// Every worker thread starts here. Its entry is run from the built copy of Weave's programs
// (src/cli/compiled.mjs), which needs no TypeScript loader. Node 20 runs module hooks per thread,
// so tsx would cost each thread some 0.7 s of CPU to start; it is brought in only where the copy
// cannot be built, or where the thread loads TypeScript from outside Weave (`typescript`: a
// dialect module of a test).
import { pathToFileURL } from 'node:url';
import { workerData } from 'node:worker_threads';
import { program } from '../../cli/compiled.mjs';

// Source maps are a thread's own: a command run with --verbose asks for them in its threads too.
if (process.env.WEAVE_SOURCE_MAPS === '1') process.setSourceMapsEnabled(true);
const built = !workerData.typescript && (await program(new URL(workerData.entry)));
if (built) await import(pathToFileURL(built).href);
else {
  const { tsImport } = await import('tsx/esm/api');
  await tsImport(workerData.entry, import.meta.url);
}
