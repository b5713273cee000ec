import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { defaultStoreDir } from '../paths.ts';

/**
 * This machine's soul: the id its sessions carry in a store that several machines feed
 * (`urn:soul:<soul>:Weave/…`). `local`, the contract's default, would make every machine's
 * session graphs the same graphs there, so an external store is written under a soul made for
 * the machine once (its host name and 8 random hex digits) and kept in the data directory,
 * readable by its user only, unless --soul or --soul-repo names one.
 */

export const SOUL_FILE = 'soul';

export const SOUL_PATTERN = /^[A-Za-z0-9._-]+$/;

/** The machine's soul, made and kept at `<base>/soul` on first use (`made` is then told its path). */
export async function machineSoul(base = defaultStoreDir(), made?: (soul: string, path: string) => void): Promise<string> {
  const path = join(base, SOUL_FILE);
  const kept = await readSoulFile(path);
  if (kept) return kept;
  const host =
    hostname()
      .toLowerCase()
      .replace(/[^a-z0-9-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 32) || 'machine';
  const soul = `${host}-${randomBytes(4).toString('hex')}`;
  await mkdir(base, { recursive: true });
  // Written aside and linked into place: two commands starting at once agree on the one made first.
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, `${soul}\n`, { mode: 0o600 });
  try {
    await link(temp, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
      throw new Error(`${path}: cannot keep this machine's soul (${(e as Error).message})`);
    const other = await readSoulFile(path);
    if (other) return other;
    throw new Error(`${path}: not a soul (letters, digits, '.', '_' or '-' on one line); remove it and Weave makes another`);
  } finally {
    await rm(temp, { force: true });
  }
  made?.(soul, path);
  return soul;
}

async function readSoulFile(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`${path}: cannot read this machine's soul (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const soul = text.trim();
  if (!SOUL_PATTERN.test(soul))
    throw new Error(`${path}:1: not a soul (letters, digits, '.', '_' or '-' on one line); remove it and Weave makes another`);
  return soul;
}
