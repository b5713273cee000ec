import { agentCorrection } from './agent/correction.ts';
import { emojikeyHarvest } from './emojikey/harvest.ts';
import { humanAuthored } from './human/authored.ts';
import type { Reader } from './reader.ts';
import { secretExposure } from './secret/exposure.ts';
import { toolError } from './tool/error.ts';

/** Every reader `weave detect` and ingest run, in the order they run. */
export const READERS: readonly Reader[] = [emojikeyHarvest, humanAuthored, toolError, secretExposure, agentCorrection];

/**
 * The readers `names` select: a full name (`emojikey/harvest`) or a detector (`emojikey`, all
 * of its readers). No names: all of them. An unknown name is an error naming the known ones.
 */
export function selectReaders(names: string[] | undefined, readers: readonly Reader[] = READERS): Reader[] {
  if (!names?.length) return [...readers];
  const chosen = new Set<Reader>();
  for (const name of names) {
    const matching = readers.filter((r) => r.name === name || r.name.startsWith(`${name}/`));
    if (!matching.length) throw new Error(`unknown detector "${name}"; known: ${readers.map((r) => r.name).join(', ')}`);
    for (const r of matching) chosen.add(r);
  }
  return readers.filter((r) => chosen.has(r));
}
