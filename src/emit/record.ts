import type { Json, JsonObject } from '../rdf/json.ts';
import type { Term, Triple } from '../rdf/terms.ts';
import { emitAbsentContent, emitContent, type ContentPolicy, type ContentSpec } from './content.ts';
import type { Reference } from './contract.ts';

/**
 * A dialect's kit for writing one record's triples, whatever the runtime: the context a record
 * emitter works with (the record's Event, the triples and references it returns, the content
 * policy, and the fields it could not type, which end up in the record's `weave:extraJson` so
 * that nothing of a line is lost), and the helpers every record emitter needs.
 */
export interface RecordContext {
  soul: string;
  /** The session the record is read into: scopes ids that are unique only within a session. */
  session: string;
  event: Term;
  lineNo: number;
  policy: ContentPolicy;
  triples: Triple[];
  references: Reference[];
  /** Fields read by name but not mapped (an unexpected type, say): kept as JSON. */
  leftover: JsonObject;
  /** Shared nodes (hook runs, files, skills) the session has described already. */
  described: Set<Term>;
}

export function t(ctx: RecordContext, s: Term, p: Term, o: Term): void {
  ctx.triples.push({ s, p, o });
}

/**
 * Whether `node`, minted from an id many records name, still needs describing in this session:
 * true the first time only, so its description is written once, not once per record.
 */
export function firstMention(ctx: RecordContext, node: Term): boolean {
  if (ctx.described.has(node)) return false;
  ctx.described.add(node);
  return true;
}

/** A link known only by id until the whole session is read; `literal` states the id where it does not resolve. */
export function ref(ctx: RecordContext, subject: Term, predicate: Term, space: Reference['space'], id: string, literal?: Term): void {
  ctx.references.push({ subject, predicate, space, id, literal });
}

export function content(ctx: RecordContext, subject: Term, property: Term, value: unknown, spec: ContentSpec): void {
  emitContent(ctx.triples, ctx.policy, subject, property, value, spec);
}

export function absent(
  ctx: RecordContext,
  subject: Term,
  property: Term,
  state: 'unavailable' | 'redacted' | 'size_only',
  spec: { pointer: string; index?: number },
  byteLength?: number,
): void {
  emitAbsentContent(ctx.triples, subject, property, state, spec, byteLength);
}

/**
 * Reads the typed fields of one JSON object. A field whose value is not of the type asked for is
 * not consumed, and `rest()` hands back every field not consumed, so the caller keeps it.
 */
export class Fields {
  private readonly consumed = new Set<string>();
  constructor(readonly raw: JsonObject) {}

  string(key: string): string | undefined {
    return this.take(key, (v) => typeof v === 'string') as string | undefined;
  }

  number(key: string): number | undefined {
    return this.take(key, (v) => typeof v === 'number' && Number.isFinite(v)) as number | undefined;
  }

  integer(key: string): number | undefined {
    return this.take(key, (v) => typeof v === 'number' && Number.isSafeInteger(v)) as number | undefined;
  }

  boolean(key: string): boolean | undefined {
    return this.take(key, (v) => typeof v === 'boolean') as boolean | undefined;
  }

  object(key: string): JsonObject | undefined {
    return this.take(key, (v) => typeof v === 'object' && v !== null && !Array.isArray(v)) as JsonObject | undefined;
  }

  /** An array of strings, taken only when every element is one. */
  strings(key: string): string[] | undefined {
    return this.take(key, (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')) as string[] | undefined;
  }

  array(key: string): Json[] | undefined {
    return this.take(key, (v) => Array.isArray(v)) as Json[] | undefined;
  }

  /** Any value, taken whole (to be kept as JSON). */
  json(key: string): Json | undefined {
    return this.take(key, () => true);
  }

  /** Marks a field as handled without reading it through here. */
  consume(key: string): void {
    this.consumed.add(key);
  }

  /** The fields not consumed. */
  rest(): JsonObject {
    const rest: JsonObject = {};
    for (const [key, value] of Object.entries(this.raw)) if (!this.consumed.has(key)) rest[key] = value;
    return rest;
  }

  private take(key: string, ok: (v: Json) => boolean): Json | undefined {
    const value = this.raw[key];
    if (value === undefined || !ok(value)) return undefined;
    this.consumed.add(key);
    return value;
  }
}

/**
 * Takes the string at `path` out of `object` (which the caller owns), removing containers left
 * empty, so what stays is exactly what was not read. Undefined (and nothing removed) when the
 * value there is not a string.
 */
export function takeString(object: JsonObject, path: (string | number)[]): string | undefined {
  const parents: [Json[] | JsonObject, string | number][] = [];
  let at: Json | undefined = object;
  for (const key of path) {
    if (!at || typeof at !== 'object') return undefined;
    parents.push([at, key]);
    at = (at as Record<string | number, Json>)[key];
  }
  if (typeof at !== 'string') return undefined;
  for (let i = parents.length - 1; i >= 0; i--) {
    const [parent, key] = parents[i];
    const child = (parent as Record<string | number, Json>)[key];
    const empty = i === parents.length - 1 || (child && typeof child === 'object' && !Array.isArray(child) && !Object.keys(child).length);
    if (!empty || Array.isArray(parent)) break; // an array keeps its slots: indexes are pointers
    delete (parent as Record<string, Json>)[key as string];
  }
  return at;
}

/** Puts `rest` under `key` of the leftover (merging), when it has anything. */
export function keepRest(ctx: RecordContext, rest: JsonObject, key?: string): void {
  if (!Object.keys(rest).length) return;
  if (!key) Object.assign(ctx.leftover, rest);
  else ctx.leftover[key] = { ...((ctx.leftover[key] as JsonObject | undefined) ?? {}), ...rest };
}
