import { HttpError } from '../../errors.ts';
import type { JobResult } from '../../messages.ts';

/**
 * How an operation answers: the serialised result as UTF-8 bytes (transferred to the main thread,
 * not copied) under the result limit, or the status that says why not.
 */

const encoder = new TextEncoder();

export function answer(text: string, mediaType: string, limit: number): JobResult {
  const body = encoder.encode(text);
  if (body.length > limit) throw tooLarge(body.length, limit);
  return { status: 200, mediaType, body };
}

function tooLarge(bytes: number, limit: number): HttpError {
  return new HttpError(
    507,
    `the result is ${(bytes / 1e6).toFixed(1)} MB, over the limit of ${(limit / 1e6).toFixed(1)} MB; narrow the query or add LIMIT`,
  );
}

/** Formats that cannot hold RDF 1.2 triple terms say so; the next acceptable format is tried. */
export const NO_TRIPLE_TERMS = /does not support RDF 1\.2/i;

export function noFormatLeft(accept: string[]): HttpError {
  return new HttpError(
    406,
    `the result holds RDF 1.2 triple terms, which ${accept.join(', ')} cannot carry; accept text/turtle, application/n-triples or application/n-quads`,
  );
}
