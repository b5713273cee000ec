// Builds the corpus store for test/corpus-store.ts in a process of its own, with the reports of
// the ingest and of the readers beside it (reports.json). Under node:test, which follows every
// promise a test file makes (to pin an error on its test), the same ingest took half as long again.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../src/ingest.ts';
import { detect } from '../src/readers/detect.ts';
import { CORPUS } from './helpers.ts';

const dir = process.argv[2];
const ingested = await ingest([CORPUS], { storeDir: dir, soul: 'local' });
const detected = await detect({ storeDir: dir });
await writeFile(join(dir, 'reports.json'), JSON.stringify({ ingested, detected }));
