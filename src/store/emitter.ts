import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MANIFEST_FILE } from './layout.ts';
import type { Manifest } from './manifest.ts';

/**
 * The emitter version: which Weave built a store's session graphs, and the one line every command
 * that reads the store says when that is not this program. A graph from an older Weave lacks what
 * later versions state (weave/0.16's, the one-hour cache writes usage prices), and is rebuilt
 * only by the next ingest; until then the answers are the old graph's. Light: the command line's
 * light entry (client/fast.ts) imports it, and it reads nothing but the manifest.
 */

/**
 * The lowering's version; a session graph is stamped `<dialect>+weave/<version>+<record derivations> <content policy>`.
 * 0.8: the conversation layer; 0.9: a first prompt as a title; 0.10: the lean graph (issue 16); 0.11: a call's
 * Usage named by its message id (issue 10); 0.12: weave:role on every turn again, as the card draws it (issue 24);
 * 0.13: a skill listing's plugin skills by their whole name, each once (issue 24); 0.14: a title with its secrets redacted (issue 25);
 * 0.15: custom, AI and summary titles redacted beyond the session graph, and a sub-agent's .meta.json under --redact-secrets;
 * 0.16: the content policy reaches titles, summaries, the last prompt, malformed lines and a sub-agent's .meta.json;
 * 0.17: a call's one-hour cache writes (weave:cacheCreation1hInputTokens), priced at their own rate; a tool use's
 * caller (weave:caller, weave:callerToolUse); the transcript of a session whose main file is absent (weave:fileAbsent).
 * The record derivations (the conversation model) carry their own versions.
 */
export const WEAVE = 'weave/0.17';

/** The emitter version in a session graph's `builtWith` (`weave/0.16`; `unknown` for a stamp naming none). */
export function emitterOf(builtWith: string | undefined): string {
  return (typeof builtWith === 'string' && /(?:^|\+)(weave\/\d+\.\d+)(?=[+ ]|$)/.exec(builtWith)?.[1]) || 'unknown';
}

/** Session graphs by the emitter version that built them. */
export function emitterVersions(manifest: Manifest | undefined): Record<string, number> {
  const versions: Record<string, number> = {};
  for (const entry of Object.values(manifest?.graphs ?? {})) {
    if (!entry?.sessionId || entry.reader) continue;
    const version = emitterOf(entry.builtWith);
    versions[version] = (versions[version] ?? 0) + 1;
  }
  return versions;
}

/** How the store's session graphs stand to this Weave (`program`): all its own, or some by an older or a newer one. */
export interface StoreAge {
  /** Newer before older: a store with both is the newer Weave's to read. */
  by: 'this' | 'older' | 'newer';
  /** The other Weaves' versions that built `count` of the store's `sessions` graphs. */
  versions: string[];
  count: number;
  sessions: number;
}

/** What rebuilds every session graph an older Weave built, wherever its files are, or were. */
export const REBUILD = 'weave ingest --rebuild';

export function storeAge(versions: Record<string, number>, program = WEAVE): StoreAge {
  const sessions = Object.values(versions).reduce((sum, n) => sum + n, 0);
  const now = rank(program) ?? 0;
  // A stamp naming no version it can read (a hand-made or damaged manifest) is no Weave's: the
  // manifest's own check judges it, and a notice before that error would send the user to ingest.
  const others = Object.keys(versions).filter((v) => v !== program && rank(v) !== undefined);
  const newer = others.filter((v) => rank(v)! > now);
  const older = others.filter((v) => rank(v)! < now);
  const which = newer.length ? newer : older;
  const by = newer.length ? 'newer' : older.length ? 'older' : 'this';
  return { by, versions: which, count: which.reduce((sum, v) => sum + versions[v], 0), sessions };
}

/**
 * One line when some session graphs were built by another Weave than this one: by an older one,
 * `weave ingest --rebuild` rebuilds them (a plain ingest reaches only the sessions under the
 * folders it reads, and none when those are gone); by a newer one, this program is the older (an
 * ingest would rebuild them as it knows them), so it is Weave to update. Undefined when all are its own.
 */
export function emitterNotice(versions: Record<string, number>, program = WEAVE): string | undefined {
  const age = storeAge(versions, program);
  if (age.by === 'this') return undefined;
  const who = age.count === age.sessions ? 'the store was' : `${age.count} of ${age.sessions} sessions were`;
  // Within 80 columns with `weave: ` up to four-digit counts of one version.
  return age.by === 'newer'
    ? `${who} built by a newer ${span(age.versions)}: update this Weave`
    : `${who} built by ${span(age.versions)}: ${REBUILD}`;
}

/**
 * The notice for the store in `dir` (none when it has no manifest or it cannot be read). The
 * manifest is parsed without readManifest's check of every field, which took 10-40 ms of a
 * light `weave query` on the corpus's store (JSON.parse 2-3): a damaged one is the command's to
 * report, and emitterVersions reads only what it finds.
 */
export async function storeEmitterNotice(dir: string): Promise<string | undefined> {
  let manifest: Manifest | undefined;
  try {
    manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  return emitterNotice(emitterVersions(manifest));
}

/** `weave/0.17` as a number that orders versions (0.17 before 0.100 before 1.0); undefined for one it cannot read. */
function rank(version: string): number | undefined {
  const found = /^weave\/(\d+)\.(\d+)$/.exec(version);
  return found ? Number(found[1]) * 1e6 + Number(found[2]) : undefined;
}

/** `weave/0.16`, or the oldest and newest of several: `weave/0.14-0.16` (versions storeAge kept, each one rank reads). */
function span(versions: string[]): string {
  const known = [...versions].sort((a, b) => rank(a)! - rank(b)!);
  const [low, high] = [known[0], known[known.length - 1]];
  return low === high ? low : `${low}-${high.slice('weave/'.length)}`;
}
