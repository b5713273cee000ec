import { MAX_QUERY_DEPTH, queryDepth } from '../../query/depth.ts';
import { HttpError } from '../errors.ts';

/** 400 for a query or update deeper than `max`, before it reaches a worker. */
export function checkQueryDepth(text: string, what: 'query' | 'update', max = MAX_QUERY_DEPTH): void {
  // The scan stops once past the limit: a 16 MB body of brackets costs no more than it must.
  if (queryDepth(text, max) > max)
    throw new HttpError(
      400,
      `the ${what} is nested too deeply for the store (over ${max} by this server's count of brackets, function calls, and UNION, OPTIONAL, BIND, ||, … chained in one group); split it or flatten it`,
    );
}
