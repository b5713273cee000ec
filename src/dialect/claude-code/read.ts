import type { SourceLine } from '../../acquire/lines.ts';
import type { LineResult } from '../dialect.ts';
import { ENVELOPE_FIELDS, MESSAGE_FIELDS, RECORD_FIELDS } from './fields.ts';
import type { ClaudeRecord, Json, JsonObject, ReadRecord } from './records.ts';

export const DIALECT = 'claude-code/1';

/** One JSONL line: a record, or not a JSON object with a string `type` (malformed, or still being written). */
export function readLine(line: SourceLine): LineResult<ReadRecord> {
  if (!line.text.trim()) return { kind: 'blank' };
  let json: unknown;
  try {
    json = JSON.parse(line.text);
  } catch (e) {
    if (!line.terminated) return { kind: 'pending' };
    return { kind: 'malformed', error: jsonError(e as Error) };
  }
  if (!isObject(json)) return { kind: 'malformed', error: `expected a JSON object, found ${describe(json)}` };
  if (typeof json.type !== 'string') return { kind: 'malformed', error: 'the record has no string "type"' };
  return { kind: 'record', ...splitRecord(json) };
}

/** Splits a record into the fields the dialect reads and the `extra` it keeps as JSON. */
export function splitRecord(json: JsonObject): ReadRecord {
  const type = json.type as string;
  const known = new Set<string>([...ENVELOPE_FIELDS, ...(RECORD_FIELDS[type] ?? [])]);
  const record: JsonObject = {};
  const extra: JsonObject = {};
  for (const [key, value] of Object.entries(json)) (known.has(key) ? record : extra)[key] = value;

  // A message's own unknown fields (container, stop_details, ...) are kept under extra.message.
  const messageFields = MESSAGE_FIELDS[type];
  if (messageFields && isObject(record.message)) {
    const message: JsonObject = {};
    const rest: JsonObject = {};
    for (const [key, value] of Object.entries(record.message)) (messageFields.includes(key) ? message : rest)[key] = value;
    record.message = message;
    if (Object.keys(rest).length) extra.message = rest;
  }
  if ((type === 'user' || type === 'assistant') && !isObject(record.message)) {
    // A turn without a message object: keep what it had, read it as empty.
    if ('message' in record) extra.message = record.message;
    record.message = { role: type, content: [] };
  }
  return Object.keys(extra).length ? { record: record as unknown as ClaudeRecord, extra } : { record: record as unknown as ClaudeRecord };
}

/**
 * The parser's message, never the text it quotes. V8 writes `Unexpected token 's', "{"a": sk-ant-…"
 * is not valid JSON`, or with a long line `…, ..."context"... is not valid JSON`, and the token
 * itself may be a NUL or an escape byte; transcripts hold secrets and terminals obey escapes.
 * So the message is rebuilt, not cleaned: one of V8's fixed templates with its position is kept
 * as it is (it holds nothing of the line), an unexpected token is named as such, and anything
 * else is only "not valid JSON".
 */
export function jsonError(e: Error): string {
  const message = e.message;
  if (message === 'Unexpected end of JSON input') return message;
  if (TEMPLATE.test(message)) return message;
  if (message.startsWith('Unexpected token')) return 'Unexpected token: not valid JSON';
  return 'not valid JSON';
}

/** V8's JSON.parse messages that quote nothing: a fixed fault and a position. */
const TEMPLATE = new RegExp(
  `^(?:${[
    'Unterminated string',
    'Bad control character in string literal',
    'Bad escaped character',
    'Bad Unicode escape',
    'Unexpected non-whitespace character after JSON',
    "Expected property name or '\\}'",
    'Expected double-quoted property name',
    "Expected ',' or '\\}' after property value",
    "Expected ',' or '\\]' after array element",
    "Expected ':' after property name",
    'No number after minus sign',
    'Exponent part is missing a number',
    'Unterminated fractional number',
  ].join('|')}) (?:in JSON )?at position \\d+(?: \\(line \\d+ column \\d+\\))?$`,
);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
}

export type { Json };
