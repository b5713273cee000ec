import { HttpError } from '../../errors.ts';
import type { Description } from '../../messages.ts';
import { routePlugin } from '../context.ts';
import { acceptedTypes, graphTypes } from '../media.ts';
import { negotiate } from '../negotiate.ts';
import { renderDescribePage } from '../pages/describe.ts';
import { isAbsoluteIri } from '../protocol.ts';
import { notAcceptable, sendResult } from '../reply.ts';
import { runJob } from '../run-job.ts';
import { sessionFactsQuery, sessionPromptsQuery } from '../../../overview/session.ts';
import { sessionGraphIri } from '../../../rdf/iri.ts';
import { WEAVE_NS } from '../../../rdf/vocab.ts';
import { loadPrices } from '../../../usage/prices.ts';
import { preparedSolutions, preparedUsage } from '../../../usage/prepared.ts';
import { reportFromRows, reportQuery } from '../../../usage/report.ts';
import type { ServerContext } from '../context.ts';
import type { SessionSummary } from '../pages/describe.ts';
import { selectRows } from '../select.ts';
import type { FastifyRequest } from 'fastify';
import { vary } from '../vary.ts';

/**
 * The describe page (and the conversation page) is static HTML with the page's stylesheet: no
 * script at all may run in it, whatever a transcript's text holds, and nothing may frame it.
 */
export const STATIC_PAGE_CSP =
  "default-src 'none'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * /describe?iri=…: every resource IRI (the `urn:soul:…` instances cannot be fetched anywhere
 * else) as an HTML page for a browser, or as RDF by Accept or `format=turtle|jsonld|ntriples|…`.
 */
export default routePlugin('weave-routes-describe', async (app) => {
  const ctx = app.weave;
  app.get('/describe', async (request, reply) => {
    const params = request.searchParams;
    const iri = params.get('iri') ?? '';
    if (!isAbsoluteIri(iri)) throw new HttpError(400, 'give the resource as ?iri=<absolute IRI>');
    const format = params.get('format') ?? undefined;
    const html = !format && negotiate(request.headers.accept, ['text/html', ...graphTypes()]) === 'text/html';
    if (html) {
      const result = await runJob(ctx, { op: 'describe', iri, accept: [], maxResultBytes: ctx.config.maxResultBytes }, request);
      const description = result.data as Description;
      const page = renderDescribePage(description, ctx.config.soul, await sessionSummary(ctx, description, request));
      return vary(
        reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', STATIC_PAGE_CSP),
        'Accept',
      ).send(page);
    }
    const accept = acceptedTypes('graph', request.headers.accept, format === 'html' ? 'turtle' : format);
    if (!accept.length) throw notAcceptable('graph', request.headers.accept, format);
    return sendResult(reply, await runJob(ctx, { op: 'describe', iri, accept, maxResultBytes: ctx.config.maxResultBytes }, request));
  });
});

/** For a transcript, its session at a glance: title, project, time span, counts, prompts, tokens and cost. */
async function sessionSummary(ctx: ServerContext, d: Description, request: FastifyRequest): Promise<SessionSummary | undefined> {
  const session = d.statements.find((s) => s.p === `${WEAVE_NS}sessionId`)?.o.value;
  if (typeof session !== 'string') return undefined;
  const graph = sessionGraphIri(ctx.config.soul, session);
  const prices = await loadPrices();
  const queries = {
    facts: sessionFactsQuery(graph, session),
    prompts: sessionPromptsQuery(graph),
    usage: reportQuery('session', prices, { session }),
  };
  // Tokens and cost from the prepared usage rows where the store has them: the same solutions, without a query.
  const prepared = await preparedUsage(ctx.config.storeDir);
  const [[facts], prompts, usageRows] = await Promise.all([
    selectRows(ctx, queries.facts, request),
    selectRows(ctx, queries.prompts, request),
    prepared ? preparedSolutions(prepared, 'session', prices, { session }) : selectRows(ctx, queries.usage, request),
  ]);
  const usage = reportFromRows('session', usageRows, prices).report;
  const spent = 'sessions' in usage ? usage.sessions[0] : undefined;
  const count = (key: string) => Number(facts?.[key] ?? 0);
  return {
    id: session,
    title: facts?.title || undefined,
    project: facts?.project,
    start: facts?.start,
    end: facts?.end,
    counts: [
      ['transcripts', count('transcripts')],
      ['records', count('events')],
      ['turns', count('turns')],
      ['prompts', count('prompts')],
      ['API calls', count('calls')],
      ['tool calls', count('tools')],
    ],
    compactions: { compactions: count('compactions'), microcompactions: count('microcompactions') },
    tokens: spent && {
      input: spent.inputTokens,
      output: spent.outputTokens,
      cacheCreation: spent.cacheCreationTokens,
      cacheRead: spent.cacheReadTokens,
      total: spent.totalTokens,
      cost: spent.totalCost,
      models: spent.modelsUsed,
    },
    prompts: prompts.map((p) => ({ turn: p.turn, time: p.time, text: p.text, compaction: p.compaction === 'true' })),
    queries,
  };
}
