import oxigraph from 'oxigraph';
import {
  CONVERSATION,
  CONVERSATION_HELP,
  conversationText,
  documentText,
  parseConversationArgs,
  sessionOf,
} from '../client/conversation.ts';
import { print, served } from '../client/served.ts';
import { sessionTitleQuery } from '../model/title.ts';
import { conversationDocument, conversationView } from '../model/view.ts';
import { runQuery } from '../query/run.ts';
import type { JsonResults } from '../query/table.ts';
import { loadGraph, loadOntology } from '../store/store.ts';
import { printHelp } from './help.ts';

/** `weave conversation`: asked of the store's server (client/conversation.ts), else read from the session's graph loaded here. */
export async function main(args: string[]): Promise<number> {
  const request = await parseConversationArgs(args);
  if (!request) {
    printHelp(CONVERSATION_HELP);
    return 0;
  }
  const answer = await served(CONVERSATION, request);
  if (answer) return print(answer);

  const [graph, entry] = await sessionOf(request);
  // Only this session's graph and the ontology: a store of thousands of sessions opens as fast as one.
  const store = new oxigraph.Store();
  await loadGraph(store, request.storeDir, entry);
  await loadOntology(store);
  const view = conversationView(store, graph, entry.sessionId!);
  return print(
    request.format === 'text'
      ? { stdout: conversationText(request, view, titleOf(store, graph)) }
      : await documentText(request, conversationDocument(view)),
  );
}

function titleOf(store: oxigraph.Store, graph: string): string | undefined {
  const query = sessionTitleQuery(graph);
  const json = JSON.parse(runQuery(store, query, { results_format: 'application/sparql-results+json' }) as string) as JsonResults;
  return json.results?.bindings[0]?.title?.value as string | undefined;
}
