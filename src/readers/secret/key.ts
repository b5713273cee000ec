import { randomBytes } from 'node:crypto';
import { chmod, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { StoreWriter } from '../../store/writer.ts';

/**
 * The store's own key for secret digests: 32 random bytes, as hex, in `secret.key` in the store
 * directory, readable by its owner only. Made on first use by the store writer (under the store's
 * lock, so one process makes it), which names it in the manifest like any store file, so
 * `verify --self` notices a key changed or lost. A key made before the manifest named it is
 * adopted as it is; one found readable by others is narrowed to 0600.
 */

export const SECRET_KEY_FILE = 'secret.key';

export async function storeSecretKey(writer: StoreWriter): Promise<Buffer> {
  const path = join(writer.dir, SECRET_KEY_FILE);
  let text: string | undefined;
  try {
    text = await readKey(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text === undefined || !writer.manifest.files?.[SECRET_KEY_FILE])
    await writer.writeFile(
      SECRET_KEY_FILE,
      SECRET_KEY_FILE,
      (text ??= `${randomBytes(32).toString('hex')}\n`),
      {},
      { mode: 0o600, versioned: false },
    );
  return Buffer.from(text.trim(), 'hex');
}

async function readKey(path: string): Promise<string> {
  const text = await readFile(path, 'utf8');
  if (!/^[0-9a-f]{64}\n?$/.test(text)) throw new Error(`${path}: not a Weave secret key (64 hex digits); move it away to make a new one`);
  if (process.platform !== 'win32' && ((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  return text;
}
