import { stat } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { walkFiles } from '../../../src/acquire/files.ts';
import type { Dialect, FoundSession } from '../../../src/dialect/dialect.ts';
import { iri } from '../../../src/rdf/terms.ts';
import { emitRecord } from './emit.ts';
import { recordFacts } from './facts.ts';
import { TOY_GLOSSARY } from './glossary.ts';
import { readLine, type ToyRecord } from './read.ts';

/**
 * A second runtime, to prove the dialect seam: it lives in this folder only. Its sessions are
 * `<folder>/<session id>.toylog` files, one stream each, with nothing beside them.
 */
export const dialect: Dialect<{ record: ToyRecord }> = {
  id: TOY_GLOSSARY.dialect,
  module: import.meta.url,
  transcriptClass: iri('https://example.org/toy-runtime#Transcript'),
  glossary: TOY_GLOSSARY,
  discover,
  openTranscript: async () => ({ about: [], stream: {} }),
  readLine,
  recordId: ({ record }) => record.id,
  emitRecord,
  observers: () => [],
  facts: recordFacts,
  // Its ids are written by the runtime's own counters (q1, a1, r1, c1): unique within a session only.
  ids: { idPath: (id, session) => [session, id], callShared: () => false },
};

const isToylog = (name: string) => name.endsWith('.toylog');

async function discover(paths: string[]): Promise<FoundSession[]> {
  const files: string[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    if ((await stat(abs)).isDirectory()) files.push(...(await walkFiles(abs, isToylog)));
    else if (isToylog(abs)) files.push(abs);
  }
  return [...new Set(files)].sort().map((path) => ({
    sessionId: basename(path, '.toylog'),
    main: { path, layout: 'desk' },
    subagents: [],
    journals: [],
    batches: [],
    projectDir: dirname(path),
  }));
}
