import type { SourceLine } from '../../../src/acquire/lines.ts';
import type { LineResult } from '../../../src/dialect/dialect.ts';
import type { Json } from '../../../src/rdf/json.ts';

/**
 * Toy Runtime's transcripts: a `.toylog` file, one record per line, fields apart by tabs:
 *
 *   <time> <id> <parent or -> ask    <text>                          a person asks
 *   <time> <id> <parent>     say    <reply> <text>                  the model answers
 *   <time> <id> <parent>     call   <reply> <call> <tool> <input>   the model calls a tool
 *   <time> <id> <parent>     result <call> ok|error <text>          the tool's answer
 *
 * A `say` and a `call` with one reply id are one model reply. Lines starting with `#` are comments.
 */
export interface ToyRecord {
  time: string;
  id: string;
  parent?: string;
  verb: 'ask' | 'say' | 'call' | 'result';
  text?: string;
  reply?: string;
  call?: string;
  tool?: string;
  input?: Json;
  failed?: boolean;
}

const ARITY = { ask: 1, say: 2, call: 4, result: 3 } as const;

export function readLine(line: SourceLine): LineResult<{ record: ToyRecord }> {
  if (!line.text.trim() || line.text.startsWith('#')) return { kind: 'blank' };
  const record = parse(line.text.split('\t'));
  if (record) return { kind: 'record', record };
  return line.terminated
    ? { kind: 'malformed', error: "not <time> <id> <parent> <verb> and the verb's fields, apart by tabs" }
    : { kind: 'pending' };
}

function parse([time, id, parent, verb, ...rest]: string[]): ToyRecord | undefined {
  if (!id || !(verb in ARITY) || rest.length !== ARITY[verb as keyof typeof ARITY] || Number.isNaN(Date.parse(time))) return undefined;
  const record: ToyRecord = { time, id, verb: verb as ToyRecord['verb'] };
  if (parent !== '-') record.parent = parent;
  if (verb === 'ask') [record.text] = rest;
  if (verb === 'say') [record.reply, record.text] = rest;
  if (verb === 'result') {
    [record.call, , record.text] = rest;
    if (rest[1] !== 'ok' && rest[1] !== 'error') return undefined;
    record.failed = rest[1] === 'error';
  }
  if (verb === 'call') {
    [record.reply, record.call, record.tool] = rest;
    try {
      record.input = JSON.parse(rest[3]);
    } catch {
      return undefined;
    }
  }
  return record;
}
