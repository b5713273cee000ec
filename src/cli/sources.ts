import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { exists } from '../acquire/files.ts';
import type { Dialect } from '../dialect/dialect.ts';
import { DIALECTS } from '../dialect/index.ts';
import { CliError } from './options.ts';

export const FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/**
 * What to read when no path is given: where each dialect's runtime keeps its transcripts (the
 * user's Claude Code projects), or, when there are none, the bundled fixtures (with a note).
 */
export async function defaultSources(
  fallbackToFixtures: boolean,
  dialects: readonly Dialect[] = DIALECTS,
): Promise<{ paths: string[]; note?: string }> {
  const roots = defaultRoots(dialects);
  const found: string[] = [];
  for (const root of roots) if (await exists(root)) found.push(root);
  if (found.length) return { paths: found };
  const where = roots.join(', ');
  if (!fallbackToFixtures)
    throw new Error(
      `no transcripts at ${where}; name a path (a projects root, a project folder or a .jsonl file), or try the bundled fixtures: weave serve`,
    );
  return { paths: [FIXTURES_DIR], note: await fixturesNote(`no transcripts at ${where}`) };
}

/** Where each dialect's runtime keeps its transcripts, whether there or not. */
export function defaultRoots(dialects: readonly Dialect[] = DIALECTS): string[] {
  return dialects.flatMap((d) => d.defaultPaths?.(process.env) ?? []);
}

/**
 * Says the fixtures are being used, and up front which of their lines are broken on purpose,
 * so the reports of them that follow read as expected, not as failures.
 */
export async function fixturesNote(reason: string): Promise<string> {
  const broken = await brokenLines(FIXTURES_DIR);
  // One entry per file and kind ("a.jsonl lines 2, 3 (malformed JSON)"): the note stays one readable line.
  const byFile = new Map<string, number[]>();
  for (const b of broken) {
    const key = `${relative(FIXTURES_DIR, b.path)}\0${b.why}`;
    byFile.set(key, [...(byFile.get(key) ?? []), b.line]);
  }
  const list = [...byFile]
    .map(([key, lines]) => {
      const [file, why] = key.split('\0');
      return `${file} ${lines.length > 1 ? 'lines' : 'line'} ${lines.join(', ')} (${why})`;
    })
    .join('; ');
  return `${reason}: using the bundled fixtures in ${FIXTURES_DIR}${broken.length ? `; ${broken.length} of their lines are broken on purpose, to show how Weave keeps them: ${list}` : ''}`;
}

/** Whether a path is inside the bundled fixtures (its bad lines are there on purpose). */
export function inFixtures(path: string): boolean {
  return resolve(path).startsWith(FIXTURES_DIR);
}

/** Non-blank lines of the .jsonl files below `dir` that are not JSON: malformed, or an unfinished last line. */
async function brokenLines(dir: string): Promise<{ path: string; line: number; why: string }[]> {
  const out: { path: string; line: number; why: string }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.jsonl')) continue;
    const path = join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name);
    const text = await readFile(path, 'utf8');
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (!line.trim()) return;
      try {
        // A byte order mark before the first line is read past, as the reader does.
        JSON.parse(i === 0 ? line.replace(/^\uFEFF/, '') : line);
      } catch {
        out.push({ path, line: i + 1, why: i === lines.length - 1 && !text.endsWith('\n') ? 'an unfinished last line' : 'malformed JSON' });
      }
    });
  }
  return out.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line);
}

/**
 * The paths `weave ingest` was given, checked: each must exist and be a folder or a .jsonl
 * file; a one-line error says what to name instead.
 */
export async function checkSources(paths: string[]): Promise<void> {
  const what = 'name a projects root (~/.claude/projects), a project folder or one .jsonl transcript';
  for (const path of paths) {
    const info = await stat(path).catch(() => undefined);
    if (!info) throw new CliError(`${path}: no such file or folder; ${what}`);
    if (!info.isDirectory() && !(info.isFile() && path.endsWith('.jsonl')))
      throw new CliError(`${path} is not a folder or a .jsonl transcript; ${what}`);
  }
}
