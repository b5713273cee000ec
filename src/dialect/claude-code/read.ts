import type { SourceLine } from '../../acquire/lines.ts';
import type { LineResult } from '../dialect.ts';
import { tooDeep } from '../../acquire/json-depth.ts';
import {
  ENVELOPE_FIELD_TYPES,
  ENVELOPE_FIELDS,
  FIELD_TYPES,
  MESSAGE_FIELDS,
  MESSAGE_TYPES,
  RECORD_FIELDS,
  type FieldType,
} from './fields.ts';
import type { ClaudeRecord, Json, JsonObject, ReadRecord } from './records.ts';
import { own } from '../../own.ts';

export const DIALECT = 'claude-code/1';

/** One JSONL line: a record, or not a JSON object with a string `type` (malformed, or still being written). */
export function readLine(line: SourceLine): LineResult<ReadRecord> {
  if (!line.text.trim()) return { kind: 'blank' };
  // Measured before parsing: nothing downstream walks a record thousands of levels deep.
  const deep = tooDeep(line.text);
  if (deep) return line.terminated ? { kind: 'malformed', error: deep } : { kind: 'pending' };
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
function splitRecord(json: JsonObject): ReadRecord {
  const type = json.type as string;
  // Record types are data: `constructor` or `__proto__` must find nothing, not Object's own.
  const known = new Set<string>([...ENVELOPE_FIELDS, ...(own(RECORD_FIELDS, type) ?? [])]);
  const record: JsonObject = {};
  const extra: JsonObject = {};
  for (const [key, value] of Object.entries(json)) (known.has(key) ? record : extra)[key] = value;

  // A message's own unknown fields (container, stop_details, ...) are kept under extra.message.
  const messageFields = own(MESSAGE_FIELDS, type);
  if (messageFields && isObject(record.message)) {
    const message: JsonObject = {};
    const rest: JsonObject = {};
    for (const [key, value] of Object.entries(record.message)) (messageFields.includes(key) ? message : rest)[key] = value;
    record.message = message;
    if (Object.keys(rest).length) extra.message = rest;
  }
  // A field of a type the dialect does not read it as is kept in extra, with a warning.
  const warnings: string[] = [];
  for (const [key, want] of Object.entries(own(FIELD_TYPES, type) ?? ENVELOPE_FIELD_TYPES)) {
    if (!(key in record) || fits(record[key], want)) continue;
    if (key !== 'message') warnings.push(wrongType(key, record[key], want));
    extra[key] = record[key];
    delete record[key];
  }
  if (isObject(record.message)) {
    const moved: JsonObject = {};
    for (const [key, want] of Object.entries(own(MESSAGE_TYPES, type) ?? {})) {
      if (!(key in record.message) || fits(record.message[key], want)) continue;
      warnings.push(wrongType(`message.${key}`, record.message[key], want));
      moved[key] = record.message[key];
      delete record.message[key];
    }
    if (Object.keys(moved).length) extra.message = { ...(isObject(extra.message) ? extra.message : {}), ...moved };
  }
  if ((type === 'user' || type === 'assistant') && !isObject(record.message)) {
    // A turn without a message object: keep what it had, read it as empty.
    if ('message' in extra) warnings.push(wrongType('message', extra.message, 'object'));
    record.message = { role: type, content: [] };
  } else if ((type === 'user' || type === 'assistant') && !('content' in (record.message as JsonObject)))
    (record.message as JsonObject).content = [];
  const read: ReadRecord = Object.keys(extra).length
    ? { record: record as unknown as ClaudeRecord, extra }
    : { record: record as unknown as ClaudeRecord };
  if (warnings.length) read.warnings = warnings;
  return read;
}

function fits(value: unknown, want: FieldType): boolean {
  switch (want) {
    case 'string':
      return typeof value === 'string';
    case 'string|null':
      return typeof value === 'string' || value === null;
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isObject(value);
    case 'content':
      return typeof value === 'string' || Array.isArray(value);
  }
}

/** The warning for a field of the wrong type: its name and both types, never its value. */
function wrongType(field: string, value: unknown, want: FieldType): string {
  const expected =
    want === 'content' ? 'a string or a list' : want === 'string|null' ? 'a string' : want === 'object' ? 'an object' : `a ${want}`;
  return `field "${field}" is ${describe(value)}, not ${expected}; kept in extraJson`;
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
  return Array.isArray(value) ? 'an array' : value === null ? 'null' : typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export type { Json };
