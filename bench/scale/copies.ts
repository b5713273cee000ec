import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

/**
 * K distinct copies of a corpus for the scale bench. Copy 0 is the corpus as it is; every other
 * copy has each id rewritten (session ids, uuids, message ids, tool_use ids, request ids, agent
 * ids, and the file and folder names made of them), the same way in every file of the copy, so
 * a copy is a corpus of its own: its sessions, turns and API calls merge with no other copy's.
 * A rewritten id keeps its length and kind of characters, so every line keeps its byte length
 * and stays valid JSON.
 */

/** Ids with a shape of their own: found anywhere in the text. */
const SHAPED = `[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?:msg|req|toolu|srvtoolu)_[A-Za-z0-9]{6,}`;
/** Fields whose string values are ids of no fixed shape (short agent ids, session ids of tests). */
const ID_FIELDS = new Set([
  'uuid',
  'id',
  'sessionId',
  'agentId',
  'parentUuid',
  'logicalParentUuid',
  'leafUuid',
  'messageId',
  'requestId',
  'toolUseID',
  'parentToolUseID',
  'sourceToolAssistantUUID',
  'sourceToolUseID',
  'promptId',
  'tool_use_id',
  'taskId',
  'task_id',
  'backgroundTaskId',
  'shellId',
  'shell_id',
  'bash_id',
]);
const ID_VALUE = /^[A-Za-z0-9_-]{6,}$/;
const AGENT_FILE = /^agent-(.+)\.(?:jsonl|meta\.json)$/;

export interface Copies {
  /** One folder per copy, each holding `projects/` (a Claude config dir, as ccusage reads it). */
  configDirs: string[];
  /** Bytes of one copy (all copies are the same size). */
  bytes: number;
  files: number;
}

/** Writes copies 0 … k-1 of `corpus` under `dir`. */
export async function makeCopies(corpus: string, dir: string, k: number): Promise<Copies> {
  const files = await walk(corpus);
  const ids = await collectIds(files);
  const pattern = idPattern(ids);
  const configDirs: string[] = [];
  let bytes = 0;
  for (let copy = 0; copy < k; copy++) {
    const root = join(dir, `copy-${copy}`);
    configDirs.push(root);
    for (const file of files) {
      const rel = relative(corpus, file);
      const text = await readFile(file, 'utf8');
      const out = copy === 0 ? text : rewrite(text, pattern, copy);
      const target = join(root, 'projects', ...rel.split(sep).map((part) => (copy === 0 ? part : rewrite(part, pattern, copy))));
      await mkdir(join(target, '..'), { recursive: true });
      await writeFile(target, out);
      if (copy === 0) bytes += Buffer.byteLength(out);
    }
  }
  return { configDirs, bytes, files: files.length };
}

/** The id `id` has in copy `copy`: same length, same kind of character at each place, prefix kept. */
export function rewriteId(id: string, copy: number): string {
  const prefix = /^(?:msg|req|toolu|srvtoolu)_/.exec(id)?.[0] ?? '';
  const hex = /^[0-9a-f-]+$/.test(id);
  const bytes = hashBytes(`${copy}\0${id}`, id.length);
  let out = prefix;
  for (let i = prefix.length; i < id.length; i++) {
    const c = id[i];
    const b = bytes[i];
    if (c === '-' || c === '_') out += c;
    else if (hex) out += (b % 16).toString(16);
    else if (c >= '0' && c <= '9') out += String(b % 10);
    else if (c >= 'A' && c <= 'Z') out += String.fromCharCode(65 + (b % 26));
    else if (c >= 'a' && c <= 'z') out += String.fromCharCode(97 + (b % 26));
    else out += c;
  }
  return out;
}

function rewrite(text: string, pattern: RegExp, copy: number): string {
  return text.replace(pattern, (id) => rewriteId(id, copy));
}

/** One pattern for every id: the shaped ones, and the named ones longest first; never inside a word. */
function idPattern(named: Set<string>): RegExp {
  const shaped = new RegExp(`^(?:${SHAPED})$`);
  const others = [...named].filter((id) => !shaped.test(id)).sort((a, b) => b.length - a.length);
  // Named ids are made of [A-Za-z0-9_-] only (ID_VALUE), nothing a pattern must escape.
  const alternatives = [...others, SHAPED].join('|');
  return new RegExp(`(?<![A-Za-z0-9])(?:${alternatives})(?![A-Za-z0-9])`, 'g');
}

/** The ids named by id fields of the records, and by agent file names. */
async function collectIds(files: string[]): Promise<Set<string>> {
  const ids = new Set<string>();
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      // A bare `id` names many things (todo items, hooks): only ids with a digit are taken from it.
      if (key && ID_FIELDS.has(key) && ID_VALUE.test(value) && (key !== 'id' || /\d/.test(value))) ids.add(value);
    } else if (Array.isArray(value)) for (const v of value) visit(v);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) visit(v, k);
  };
  for (const file of files) {
    const agent = AGENT_FILE.exec(file.slice(file.lastIndexOf(sep) + 1));
    if (agent && /\d/.test(agent[1])) ids.add(agent[1]);
    if (!file.endsWith('.jsonl') && !file.endsWith('.json')) continue;
    const text = await readFile(file, 'utf8');
    for (const line of file.endsWith('.json') ? [text] : text.split('\n')) {
      try {
        visit(JSON.parse(line));
      } catch {
        // a malformed line keeps its ids as text; the shaped ones are still rewritten
      }
    }
  }
  return ids;
}

function hashBytes(seed: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let filled = 0, round = 0; filled < length; round++) {
    const block = createHash('sha256').update(`${round}\0${seed}`).digest();
    out.set(block.subarray(0, Math.min(block.length, length - filled)), filled);
    filled += block.length;
  }
  return out;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(path)));
    else if (entry.isFile()) out.push(path);
  }
  return out.sort();
}
