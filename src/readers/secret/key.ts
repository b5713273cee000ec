import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The store's own key for secret digests: 32 random bytes, as hex, in `secret.key` in the store
 * directory, readable by its owner only. Made on first use; if two processes make it at once,
 * one file wins (it is written aside and hard-linked into place, which fails if it exists) and
 * both use it. A key found readable by others is narrowed to 0600.
 */

export const SECRET_KEY_FILE = 'secret.key';

export async function storeSecretKey(storeDir: string): Promise<Buffer> {
  const path = join(storeDir, SECRET_KEY_FILE);
  try {
    return await readKey(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  await mkdir(storeDir, { recursive: true });
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    await link(temp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    await rm(temp, { force: true });
  }
  return readKey(path);
}

async function readKey(path: string): Promise<Buffer> {
  const text = await readFile(path, 'utf8');
  if (!/^[0-9a-f]{64}\n?$/.test(text)) throw new Error(`${path}: not a Weave secret key (64 hex digits); move it away to make a new one`);
  if (process.platform !== 'win32' && ((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600);
  return Buffer.from(text.trim(), 'hex');
}
