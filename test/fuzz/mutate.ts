import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { FIXTURES } from '../helpers.ts';

/**
 * Fuzzed transcripts made from real ones: records drawn from the fixtures, then broken the ways
 * transcripts are broken in the wild and the ways an attacker would break them. A case is plain
 * data (indices and choices), so fast-check can shrink a failure to its smallest form, and it
 * renders to the exact bytes of a session file and, sometimes, a sub-agent's file.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

/** Every record line of the hand-written fixtures (not fixtures/hardening, which is broken already). */
export const POOL: Obj[] = (() => {
  const out: Obj[] = [];
  const stack = [FIXTURES];
  while (stack.length) {
    const dir = stack.pop()!;
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'hardening') stack.push(path);
      } else if (name.endsWith('.jsonl'))
        for (const line of readFileSync(path, 'utf8').split('\n')) {
          try {
            const json = JSON.parse(line);
            if (json && typeof json === 'object' && !Array.isArray(json)) out.push(json);
          } catch {
            /* the pool is records only */
          }
        }
    }
  }
  return out;
})();

/** The token planted in texts: no reader graph, manifest or message may ever hold it. */
export const PLANTED = 'ghp_FuzzPlanted0123456789abcdefghijklmnOPQR';

/** Strings that have broken parsers, IRIs, terminals and file systems. */
const ODD = [
  '',
  ' ',
  '..',
  '../../etc/passwd',
  '/',
  '%',
  '%2F',
  '#',
  '?',
  '<',
  '>',
  '"',
  "'",
  '\\',
  '{}',
  '|',
  '^',
  '`',
  '\n',
  '\r\n',
  '\t',
  '\u0000',
  '\u001b[31m',
  '\u007f',
  '\u0085',
  '\u2028',
  '\u202e',
  '\ufeff',
  '\ud800',
  '\udfff',
  '😀',
  'ﬁ',
  'ẞ',
  '\u0301',
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'urn:soul:local:Weave/Turn/x',
  '<urn:evil> <urn:p> <urn:o> .',
  '" . <urn:s> <urn:p> "injected',
  '> <urn:p> <urn:o> <urn:g> .\n<urn:x',
  'a'.repeat(300),
  'C:\\Users\\x',
  'ok',
];

/** Values of every JSON type, and numbers past what a double keeps. */
const FLIPS: Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e21,
  Number('12345678901234567890'),
  'text',
  '',
  [],
  {},
  [1, 'two'],
  { type: 'text' },
];
/** Written as raw JSON numbers that JSON.parse overflows or rounds. */
const RAW_NUMBERS = ['1e400', '-1e400', '1e-400', '123456789012345678901234567890', '0.1e1', '-0'];

export type Mutation =
  | { kind: 'drop'; record: number; at: number }
  | { kind: 'flip'; record: number; at: number; value: number }
  | { kind: 'rawNumber'; record: number; at: number; value: number }
  | { kind: 'odd'; record: number; field: number; value: number; extra: string }
  | { kind: 'huge'; record: number; at: number; size: number }
  | { kind: 'deep'; record: number; at: number; depth: number }
  | { kind: 'reuseUuid'; record: number; from: number }
  | { kind: 'parentCycle'; record: number; to: number }
  | { kind: 'inject'; record: number; at: number; what: number }
  | { kind: 'duplicateKey'; record: number; value: number };

export type LineMutation =
  | { kind: 'truncate'; line: number; keep: number }
  | { kind: 'invalidUtf8'; line: number; at: number; bytes: number }
  | { kind: 'rawNul'; line: number; at: number }
  | { kind: 'crlf'; line: number }
  | { kind: 'blank'; line: number }
  | { kind: 'bom' }
  | { kind: 'noFinalNewline' };

export interface FuzzCase {
  records: number[];
  mutations: Mutation[];
  lines: LineMutation[];
  /** How many of the records go to a sub-agent's file instead of the session's. */
  agentRecords: number;
}

const idx = fc.nat({ max: 10_000 });
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('drop' as const), record: idx, at: idx }),
  fc.record({ kind: fc.constant('flip' as const), record: idx, at: idx, value: idx }),
  fc.record({ kind: fc.constant('rawNumber' as const), record: idx, at: idx, value: idx }),
  fc.record({
    kind: fc.constant('odd' as const),
    record: idx,
    field: idx,
    value: idx,
    extra: fc.string({ unit: 'binary', maxLength: 12 }),
  }),
  fc.record({ kind: fc.constant('huge' as const), record: idx, at: idx, size: fc.integer({ min: 100_000, max: 300_000 }) }),
  fc.record({ kind: fc.constant('deep' as const), record: idx, at: idx, depth: fc.integer({ min: 50, max: 3000 }) }),
  fc.record({ kind: fc.constant('reuseUuid' as const), record: idx, from: idx }),
  fc.record({ kind: fc.constant('parentCycle' as const), record: idx, to: idx }),
  fc.record({ kind: fc.constant('inject' as const), record: idx, at: idx, what: idx }),
  fc.record({ kind: fc.constant('duplicateKey' as const), record: idx, value: idx }),
);
const lineMutation: fc.Arbitrary<LineMutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), line: idx, keep: idx }),
  fc.record({ kind: fc.constant('invalidUtf8' as const), line: idx, at: idx, bytes: idx }),
  fc.record({ kind: fc.constant('rawNul' as const), line: idx, at: idx }),
  fc.record({ kind: fc.constant('crlf' as const), line: idx }),
  fc.record({ kind: fc.constant('blank' as const), line: idx }),
  fc.constant({ kind: 'bom' as const }),
  fc.constant({ kind: 'noFinalNewline' as const }),
);

export const fuzzCase: fc.Arbitrary<FuzzCase> = fc.record({
  records: fc.array(fc.nat({ max: POOL.length - 1 }), { minLength: 2, maxLength: 24 }),
  mutations: fc.array(mutation, { maxLength: 10 }),
  lines: fc.array(lineMutation, { maxLength: 4 }),
  agentRecords: fc.nat({ max: 4 }),
});

/** Paths to every value inside `value`, found without recursion. */
function paths(value: Json): (string | number)[][] {
  const out: (string | number)[][] = [];
  const stack: [Json, (string | number)[]][] = [[value, []]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (path.length) out.push(path);
    if (Array.isArray(v)) for (const [i, x] of v.entries()) stack.push([x, [...path, i]]);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([x, [...path, k]]);
  }
  return out.sort((a, b) => a.join('\u0000').localeCompare(b.join('\u0000')));
}

function get(root: Json, path: (string | number)[]): Json | undefined {
  let at: Json | undefined = root;
  for (const key of path) at = at && typeof at === 'object' ? (at as Record<string | number, Json>)[key] : undefined;
  return at;
}

function set(root: Json, path: (string | number)[], value: Json | undefined): void {
  const parent = get(root, path.slice(0, -1)) as Record<string | number, Json> | undefined;
  if (!parent || typeof parent !== 'object') return;
  const key = path[path.length - 1];
  if (value === undefined) {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete parent[key];
  } else parent[key] = value;
}

/** Keys whose values are ids: Weave mints IRIs from them. */
const ID_KEYS = new Set([
  'uuid',
  'parentUuid',
  'logicalParentUuid',
  'sessionId',
  'agentId',
  'id',
  'tool_use_id',
  'toolUseID',
  'parentToolUseID',
  'promptId',
  'requestId',
  'leafUuid',
  'messageId',
  'sourceToolAssistantUUID',
  'sourceToolUseID',
  'source_uuid',
  'type',
  'name',
  'tool_name',
  'filename',
  'path',
  'file_path',
  'planFilePath',
  'hookEvent',
  'agentType',
]);

/** Fields where odd strings do the most harm: ids, names, paths. */
const ID_FIELDS: (string | number)[][] = [
  ['uuid'],
  ['parentUuid'],
  ['sessionId'],
  ['agentId'],
  ['cwd'],
  ['promptId'],
  ['requestId'],
  ['message', 'id'],
  ['message', 'model'],
  ['message', 'content', 0, 'id'],
  ['message', 'content', 0, 'name'],
  ['message', 'content', 0, 'tool_use_id'],
  ['message', 'content', 0, 'input', 'file_path'],
  ['attachment', 'filename'],
  ['attachment', 'type'],
  ['type'],
  ['data', 'type'],
  ['toolUseID'],
  ['leafUuid'],
];

interface Rendered {
  /** File name → bytes. */
  files: Map<string, Buffer>;
}

/** The bytes of a case's transcript files: `<session>.jsonl` and maybe `<session>/subagents/agent-fuzz.jsonl`. */
export function render(c: FuzzCase, sessionId: string): Rendered {
  const records: Obj[] = c.records.map((i) => structuredClone(POOL[i]));
  const pick = <T>(list: readonly T[], n: number) => list[n % list.length];
  const raw = new Map<number, Map<string, string>>(); // record → placeholder → raw JSON text
  const dupes = new Map<number, string>();
  let placeholder = 0;
  for (const m of c.mutations) {
    const r = m.record % records.length;
    const rec = records[r];
    const all = paths(rec);
    const path = 'at' in m && all.length ? pick(all, m.at) : undefined;
    switch (m.kind) {
      case 'drop':
        if (path) set(rec, path, undefined);
        break;
      case 'flip':
        if (path) set(rec, path, structuredClone(pick(FLIPS, m.value)) as Json);
        break;
      case 'rawNumber':
        if (path) {
          const key = `__raw${placeholder++}__`;
          raw.set(r, (raw.get(r) ?? new Map()).set(key, pick(RAW_NUMBERS, m.value)));
          set(rec, path, key);
        }
        break;
      case 'odd': {
        const field = pick(ID_FIELDS, m.field);
        const parent = get(rec, field.slice(0, -1));
        if (parent && typeof parent === 'object') set(rec, field, pick(ODD, m.value) + m.extra);
        break;
      }
      case 'huge':
        if (path && typeof get(rec, path) === 'string') set(rec, path, `${get(rec, path)}${'x'.repeat(m.size)}`);
        break;
      case 'deep':
        if (path) {
          // Written as text: a value thousands of levels deep would overflow JSON.stringify here.
          const key = `__raw${placeholder++}__`;
          raw.set(
            r,
            (raw.get(r) ?? new Map()).set(key, `${'['.repeat(m.depth)}${JSON.stringify(get(rec, path) ?? null)}${']'.repeat(m.depth)}`),
          );
          set(rec, path, key);
        }
        break;
      case 'reuseUuid':
        if (typeof records[m.from % records.length].uuid === 'string') rec.uuid = records[m.from % records.length].uuid;
        break;
      case 'parentCycle': {
        const to = records[r + (m.to % (records.length - r))];
        if (typeof to.uuid === 'string') rec.parentUuid = to.uuid;
        break;
      }
      case 'inject': {
        const what = pick([PLANTED, `password=${PLANTED}`, '\ud800', '\u0000', '\u001b]0;x\u0007', '\r\n', '"}', '\\u0000'], m.what);
        // A secret goes into text, not into an id: an IRI is minted from an id, and readers name events by IRI.
        const strings = all.filter(
          (p) => typeof get(rec, p) === 'string' && !(what.includes(PLANTED) && ID_KEYS.has(String(p[p.length - 1]))),
        );
        if (!strings.length) break;
        const p = pick(strings, m.at);
        set(rec, p, `${get(rec, p)} ${what} `);
        break;
      }
      case 'duplicateKey':
        dupes.set(r, JSON.stringify(pick(FLIPS, m.value)));
        break;
    }
  }
  let lines = records.map((rec, r) => {
    let text = JSON.stringify(rec);
    // Placeholders may sit inside one another's raw text: substitute until none is left.
    for (let again = true; again; ) {
      again = false;
      for (const [key, value] of raw.get(r) ?? []) {
        const at = text.indexOf(JSON.stringify(key));
        if (at >= 0) {
          text = text.slice(0, at) + value + text.slice(at + JSON.stringify(key).length);
          again = true;
        }
      }
    }
    // A key written twice: JSON.parse keeps the last, the first is a value of another type.
    const dupe = dupes.get(r);
    if (dupe !== undefined && text.startsWith('{"')) {
      const key = text.slice(1, text.indexOf('"', 2) + 1);
      text = `{${key}:${dupe},${text.slice(1)}`;
    }
    return Buffer.from(text, 'utf8');
  });
  let bom = false;
  let finalNewline = true;
  for (const m of c.lines) {
    if (m.kind === 'bom') bom = true;
    else if (m.kind === 'noFinalNewline') finalNewline = false;
    else {
      const i = m.line % lines.length;
      const line = lines[i];
      if (m.kind === 'truncate') lines[i] = line.subarray(0, m.keep % (line.length + 1));
      else if (m.kind === 'invalidUtf8') {
        const at = m.at % (line.length + 1);
        const bad = pick([[0xff], [0xc3], [0xe2, 0x82], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]], m.bytes);
        lines[i] = Buffer.concat([line.subarray(0, at), Buffer.from(bad), line.subarray(at)]);
      } else if (m.kind === 'rawNul') {
        const at = m.at % (line.length + 1);
        lines[i] = Buffer.concat([line.subarray(0, at), Buffer.from([0]), line.subarray(at)]);
      } else if (m.kind === 'crlf') lines[i] = Buffer.concat([line, Buffer.from('\r')]);
      else lines = [...lines.slice(0, i), Buffer.alloc(0), ...lines.slice(i)];
    }
  }
  const split = Math.max(0, lines.length - c.agentRecords);
  const join = (part: Buffer[], last: boolean) =>
    Buffer.concat([...part.flatMap((l, i) => (i < part.length - 1 || !last || finalNewline ? [l, Buffer.from('\n')] : [l]))]);
  const files = new Map<string, Buffer>();
  const main = join(lines.slice(0, split), true);
  files.set(`${sessionId}.jsonl`, bom ? Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), main]) : main);
  if (split < lines.length) files.set(`${sessionId}/subagents/agent-fuzz.jsonl`, join(lines.slice(split), true));
  return { files };
}
