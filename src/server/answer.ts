import { NotXmlError, solutionForm, writeSolutions } from '../query/solutions.ts';
import type { JsonResults } from '../query/table.ts';
import { HttpError } from './errors.ts';
import type { JobResult, QueryJob } from './messages.ts';

/**
 * How an operation answers: the serialised result as UTF-8 bytes (transferred to the main thread,
 * not copied) under the result limit, or the status that says why not.
 */

const encoder = new TextEncoder();

export function answer(text: string, mediaType: string, limit: number): JobResult {
  return bounded(encoder.encode(text), mediaType, limit);
}

/** Bytes already serialised (an external store's answer) under the result limit. */
export function bounded(body: Uint8Array, mediaType: string, limit: number): JobResult {
  if (body.length > limit) throw tooLarge(body.length, limit);
  return { status: 200, mediaType, body };
}

function tooLarge(bytes: number, limit: number): HttpError {
  return new HttpError(
    507,
    `the result is ${(bytes / 1e6).toFixed(1)} MB, over the limit of ${(limit / 1e6).toFixed(1)} MB; narrow the query or add LIMIT`,
  );
}

/** Solutions in the first format the client accepts that can hold them (also an external store's, from its JSON). */
export function solutionsAnswer(results: JsonResults, job: QueryJob): JobResult {
  let refused: NotXmlError | undefined;
  for (const format of job.accept) {
    try {
      return answer(writeSolutions(results, format, solutionForm(format, job.tripleTerms)), format, job.maxResultBytes);
    } catch (e) {
      if (!(e instanceof NotXmlError)) throw e;
      refused = e;
    }
  }
  throw new HttpError(
    406,
    `${refused!.message}, so it cannot be SPARQL XML; accept application/sparql-results+json, text/csv or text/tab-separated-values`,
  );
}
