import type { JsonResults } from '../../query/table.ts';
import { mediaTypeNamed } from '../../query/formats.ts';
import type { FastifyRequest } from 'fastify';
import type { ServerContext } from './context.ts';
import { runJob } from './run-job.ts';

/** A SELECT a page needs, run by a query worker like any client's, as rows of plain values. */
export async function selectRows(ctx: ServerContext, query: string, request?: FastifyRequest): Promise<Record<string, string>[]> {
  const result = await runJob(
    ctx,
    {
      op: 'query',
      query,
      defaultGraphs: [],
      namedGraphs: [],
      graphResult: false,
      accept: [mediaTypeNamed('json')],
      baseIri: 'http://localhost/',
      tripleTerms: 'literal',
      maxResultBytes: ctx.config.maxResultBytes,
    },
    request,
  );
  const json = JSON.parse(Buffer.from(result.body ?? new Uint8Array()).toString('utf8')) as JsonResults;
  return (json.results?.bindings ?? []).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, String(v.value)])));
}
