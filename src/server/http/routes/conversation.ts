import type { FastifyReply, FastifyRequest } from 'fastify';
import { conversationDocument, conversationQueries, readView, shownInPrint } from '../../../model/view.ts';
import { sessionFactsQuery } from '../../../overview/session.ts';
import { type NamedSession, SESSION_ID, sessionsNamed, sessionsNamedQuery, sessionTitleQuery } from '../../../model/title.ts';
import { SESSIONS } from '../../../overview/queries.ts';
import { instanceIri } from '../../../rdf/iri.ts';
import { HttpError } from '../../errors.ts';
import { routePlugin, type ServerContext } from '../context.ts';
import { detailsFromRows, readDetails } from '../conversation-details.ts';
import { negotiate } from '../negotiate.ts';
import { pageNodes, renderConversationList, renderConversationPage, renderSessionChoice, shownOnPage } from '../pages/conversation.ts';
import { selectRows } from '../select.ts';
import { STATIC_PAGE_CSP } from './describe.ts';
import { vary } from '../vary.ts';

/**
 * /conversation/<session>: one session's conversation model as a page, read by the query workers
 * with the same SELECTs and the same function `weave conversation` uses (src/model/view.ts), so
 * the page and `weave conversation --json` show one model; `?format=json` (or Accept:
 * application/json) answers with that document itself, and `?format=view` with the view and the
 * session's title that `weave conversation` prints as text. The session is its id or a unique
 * prefix of one. /conversation lists the sessions.
 */

export default routePlugin('weave-routes-conversation', async (app) => {
  const ctx = app.weave;

  app.get('/conversation', async (request, reply) => {
    const rows = await selectRows(ctx, SESSIONS, request);
    return html(
      reply,
      renderConversationList(rows.map((r) => ({ id: r.session, title: r.title || undefined, start: r.start, turns: +r.turns }))),
    );
  });

  app.get('/conversation/:session', async (request, reply) => {
    const { session: given } = request.params as { session: string };
    if (!SESSION_ID.test(given)) throw new HttpError(400, 'a session is named by its id, or the first characters of it');
    const found = await findSession(ctx, given, request);
    if (found.length !== 1) return html(reply.code(found.length ? 300 : 404), renderSessionChoice(given, found));
    const [{ id, graph, soul }] = found;
    const format = request.searchParams.get('format');
    const json =
      format === 'json' || (!format && negotiate(request.headers.accept, ['text/html', 'application/json']) === 'application/json');
    if (format && format !== 'html' && format !== 'view' && !json) throw new HttpError(400, 'format is html, json or view');
    const from = count(request, 'from', 1);
    const select = (query: string) => selectRows(ctx, query, request);
    // A session the manifest counts small is read whole, in one round of queries.
    const whole = ((await ctx.summary.quadsOf(graph)) ?? Number.POSITIVE_INFINITY) <= READ_WHOLE_UP_TO;
    if (json || format === 'view') {
      // The printout reads what it shows (--depth and --width, as the command sends them); a document, the whole tree.
      const shown = format === 'view' ? shownInPrint(count(request, 'depth', 7), count(request, 'width', 6)) : undefined;
      const [view, title] = await Promise.all([
        readView(graph, id, select, whole ? undefined : shown),
        format === 'view' ? select(sessionTitleQuery(graph)).then((r) => r[0]?.title) : undefined,
      ]);
      // The view and title `weave conversation` prints from; the document it prints with --json, to the byte.
      const body = format === 'view' ? JSON.stringify({ view, title }) : `${JSON.stringify(conversationDocument(view), null, 2)}\n`;
      return vary(reply.header('content-type', 'application/json; charset=utf-8'), 'Accept').send(body);
    }
    const shown = shownOnPage(from);
    const [view, [facts]] = await Promise.all([
      readView(graph, id, select, whole ? undefined : shown),
      select(sessionFactsQuery(graph, id)),
    ]);
    // A long session's page reads the details of what it shows; a page of all of it, every node's.
    const detailRows = await readDetails(graph, pageNodes(view, from), select);
    const document = conversationDocument(view);
    const page = renderConversationPage({
      document,
      starts: view.starts,
      details: detailsFromRows(detailRows),
      title: facts?.title || undefined,
      project: facts?.project,
      start: facts?.start,
      end: facts?.end,
      compactions: { compactions: Number(facts?.compactions ?? 0), microcompactions: Number(facts?.microcompactions ?? 0) },
      transcript: instanceIri(soul, 'Transcript', id).slice(1, -1),
      treeQuery: conversationQueries(graph).tree,
      from,
    });
    return html(vary(reply, 'Accept'), page);
  });
});

/** A positive whole number the request gives: a page's first talk (`?from=101`), a printout's depth and width (`?depth=7&width=6`). */
function count(request: FastifyRequest, name: string, fallback: number): number {
  const given = request.searchParams.get(name);
  if (given === null) return fallback;
  if (!/^[1-9]\d{0,8}$/.test(given)) throw new HttpError(400, `${name} is a positive whole number`);
  return Number(given);
}

/**
 * A session graph of at most this many quads is read whole for a printout or a page: reading what
 * is shown first (readView) asks a second round of queries, worth it only for a long session. Over
 * Virtuoso, `weave conversation` of the corpus's largest session (54k quads) took 454–463 ms read
 * whole against 547–570 ms by rounds; the bench's 100 MB session (4.1 M quads), 4.1 s by rounds
 * and about 10 s whole.
 */
const READ_WHOLE_UP_TO = 100_000;

function html(reply: FastifyReply, page: string) {
  return reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', STATIC_PAGE_CSP).send(page);
}

/** The session an id names: the one with exactly that id (this machine's copy first), else every one it begins (model/title.ts). */
async function findSession(ctx: ServerContext, given: string, request: FastifyRequest): Promise<NamedSession[]> {
  // The id passed SESSION_ID: it holds no quote or backslash, so it is safe inside a literal.
  return sessionsNamed(await selectRows(ctx, sessionsNamedQuery(given), request), given, ctx.config.soul);
}
