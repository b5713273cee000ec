import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { McpContext } from './context.ts';
import { registerLibrary } from './library.ts';
import { registerConversation } from './tools/conversation.ts';
import { registerDescribe } from './tools/describe.ts';
import { registerSearch } from './tools/search.ts';
import { registerSessions } from './tools/sessions.ts';
import { registerSparql } from './tools/sparql.ts';
import { registerUsage } from './tools/usage.ts';

/** `weave mcp`'s server: six read-only tools over the store, its ontology, glossary and ready queries. */

const INSTRUCTIONS = `Weave holds the user's past Claude Code sessions as a graph: every prompt, model reply, tool call and result, with tokens and cost.
To recall how something was done: \`search\` for words, then \`conversation\` for the session's structure or \`describe\` for one turn, call or tool.
\`sessions\` lists recent sessions; \`usage\` gives tokens and cost; \`sparql\` answers anything else (read weave://ontology and the weave://queries/* examples first).
Everything is read-only and answered from this machine.`;

export function weaveMcpServer(ctx: McpContext, version: string): McpServer {
  const server = new McpServer({ name: 'weave', version }, { instructions: INSTRUCTIONS });
  registerSearch(server, ctx);
  registerSparql(server, ctx);
  registerConversation(server, ctx);
  registerUsage(server, ctx);
  registerSessions(server, ctx);
  registerDescribe(server, ctx);
  registerLibrary(server);
  return server;
}
