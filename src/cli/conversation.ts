import oxigraph from 'oxigraph';
import {
  CONVERSATION,
  CONVERSATION_HELP,
  conversationText,
  documentText,
  parseConversationArgs,
  type ConversationRequest,
  sessionOf,
} from '../client/conversation.ts';
import { print, served } from '../client/served.ts';
import { SESSION_ID, sessionsNamed, sessionsNamedQuery, sessionTitleQuery } from '../model/title.ts';
import { type ConversationView, conversationDocument, readView, shownInPrint, storeRows } from '../model/view.ts';
import { runQuery } from '../query/run.ts';
import type { JsonResults } from '../query/table.ts';
import { openQueries, selectRows } from '../store/queries.ts';
import { readRemoteConfig } from '../store/remote/config.ts';
import { loadGraph, loadOntology } from '../store/store.ts';
import { CliError, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';

/**
 * `weave conversation`: asked of the store's server (client/conversation.ts), else read from the
 * session's graph loaded here, or asked of the external store that holds it.
 */
export async function main(args: string[]): Promise<number> {
  const request = await parseConversationArgs(args);
  if (!request) {
    printHelp(CONVERSATION_HELP);
    return 0;
  }
  await sayEmitter(request.storeDir);
  const answer = await served(CONVERSATION, request);
  if (answer) return print(answer);

  let here: Awaited<ReturnType<typeof sessionOf>>;
  try {
    here = await sessionOf(request);
  } catch (e) {
    const there = await sessionElsewhere(request, e);
    return print(await printed(request, there.view, there.title));
  }
  const [graph, entry] = here;
  // Only this session's graph and the ontology: a store of thousands of sessions opens as fast as one.
  const store = new oxigraph.Store();
  await loadGraph(store, request.storeDir, entry);
  await loadOntology(store);
  const view = await readView(graph, entry.sessionId!, (query) => storeRows(store, query), shownBy(request));
  return print(await printed(request, view, titleOf(store, graph)));
}

/** What of the tree is read for `request`: what its printout shows, or the whole tree for a document. */
function shownBy(request: ConversationRequest) {
  return request.format === 'text' ? shownInPrint(request.depth, request.width) : undefined;
}

function printed(request: ConversationRequest, view: ConversationView, title: string | undefined) {
  return request.format === 'text' ? { stdout: conversationText(request, view, title) } : documentText(request, conversationDocument(view));
}

/**
 * Over an external store several machines feed, a session another machine wrote: its view asked
 * of that store, as the server asks it (`failed`, the error of looking for it here, otherwise).
 */
async function sessionElsewhere(request: ConversationRequest, failed: unknown): Promise<{ view: ConversationView; title?: string }> {
  const remote = failed instanceof CliError && SESSION_ID.test(request.id) ? await readRemoteConfig(request.storeDir) : undefined;
  if (!remote) throw failed;
  const queries = await openQueries(request.storeDir);
  const sessions = sessionsNamed(await selectRows(queries, sessionsNamedQuery(request.id)), request.id);
  const [found, ...more] = sessions;
  if (!found) throw failed;
  if (more.length)
    throw new CliError(
      `${request.id} names ${sessions.length} sessions in the external store: ${sessions
        .slice(0, 5)
        .map((s) => s.id)
        .join(', ')}`,
    );
  const view = await readView(found.graph, found.id, (query) => selectRows(queries, query), shownBy(request));
  const [titled] = await selectRows(queries, sessionTitleQuery(found.graph));
  return { view, title: titled?.title };
}

function titleOf(store: oxigraph.Store, graph: string): string | undefined {
  const query = sessionTitleQuery(graph);
  const json = JSON.parse(runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string) as JsonResults;
  return json.results?.bindings[0]?.title?.value as string | undefined;
}
