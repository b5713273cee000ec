import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { readerGraphIri } from '../../src/rdf/iri.ts';
import { detect, type DetectReport } from '../../src/readers/detect.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { FIXTURES, tempDir } from '../helpers.ts';

/** The secrets fixtures/hardening/secrets plants (an AWS key, a GitHub token, a password, a private key's body, an Anthropic key). */
export const PLANTED_SECRETS = [
  'AKIAQ3EGRV7X2LMNBC4D',
  'ghp_R8mK2pQ7vX4nL9sT1wY6zA3bC5dE0fG2hJ4k',
  'Tr0ub4dor&3xyz',
  'MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu',
  'sk-ant-api03-Zq8Wm2Xr5Tn7Yp1Ks4Lv6Hb9Jd3Fg0Qa2Ws5Ed8Rf1Tg4Yh7Uj0Ik3Ol6Pz9Xc2Vb5Nm8',
];

/** The readers' fixture project: four sessions written for the readers. */
export const READER_FIXTURES = join(FIXTURES, 'readers');

export const SESSIONS = {
  emojikey: 'e3e3e3e3-e3e3-4e3e-8e3e-e3e3e3e3e3e3',
  forms: 'f0f0f0f0-f0f0-4f0f-8f0f-f0f0f0f0f0f0',
  tools: '70070070-0700-4700-8700-700700700700',
  prompts: 'b0b0b0b0-b0b0-4b0b-8b0b-b0b0b0b0b0b0',
};

export const TURN = (uuid: string) => `urn:soul:local:Weave/Turn/${uuid}`;
export const BLOCK = (uuid: string, ...order: number[]) => `urn:soul:local:Weave/ContentBlock/${uuid}/${order.join('/')}`;
/** Turn uuids of the fixtures: `e3(4)` is the emojikey session's fourth record. */
export const e3 = (n: number) => `e3000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
export const f0 = (n: number) => `f0000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
export const t7 = (n: number) => `70000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;
export const b0 = (n: number) => `b0000000-0000-4000-8000-0000000000${String(n).padStart(2, '0')}`;

/** Ingests the readers' fixtures into a fresh store, runs every reader, and opens the store. */
export async function detectedStore(paths = [READER_FIXTURES]): Promise<{ dir: string; store: OxStore; report: DetectReport }> {
  const dir = await tempDir('weave-readers-');
  await ingest(paths, { storeDir: dir, soul: 'local' });
  const report = await detect({ storeDir: dir });
  const { store } = await openStore(dir);
  return { dir, store, report };
}

/** The N-Quads text of one reader's graph for one session, as written on disk. */
export async function readerGraphFile(dir: string, sessionId: string, reader: string): Promise<string> {
  const manifest = await readManifest(dir);
  const entry = manifest?.graphs[readerGraphIri('local', sessionId, reader)];
  if (!entry) throw new Error(`no ${reader} graph for ${sessionId}`);
  return readFile(join(dir, entry.file), 'utf8');
}
