// Worker threads do not inherit the tsx loader the main thread was started with (Node 20 runs
// module hooks per thread), so each worker starts here and imports its TypeScript entry via tsx.
import { workerData } from 'node:worker_threads';
import { tsImport } from 'tsx/esm/api';

await tsImport(workerData.entry, import.meta.url);
