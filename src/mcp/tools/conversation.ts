import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { type ConversationView, conversationDocument, readView, type TreeDocument } from '../../model/view.ts';
import type { McpContext } from '../context.ts';
import { answer, clip } from '../fit.ts';
import { sessionNamed } from '../sessions.ts';

/**
 * `conversation`: one session's conversation model, read with the same SELECTs and the same
 * function as `weave conversation --json` (src/model/view.ts, readView), given as its talks in order, a
 * page at a time: compact (each talk's runs, calls and tools counted and named) or in full (each
 * talk's tree of runs → calls → tools).
 */

const DESCRIPTION = `One past session's structure, read from the graph: its talks (a prompt and everything it led to) in order, in every stream (the main thread and each sub-agent), each with its runs, LLM calls and tool calls.
Compact by default (per talk: its prompt, counts and the tools used); detail "full" gives each talk's tree of runs → llm.calls → tools with their IRIs (pass one to \`describe\`). Pages of \`limit\` talks from \`offset\`.`;

interface Talk {
  stream: string;
  node: TreeDocument;
}

export function registerConversation(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'conversation',
    {
      title: 'One session as talks, runs, calls and tools',
      description: DESCRIPTION,
      inputSchema: {
        session: z.string().min(1).describe('the session id, or a unique prefix of one'),
        detail: z.enum(['compact', 'full']).default('compact').describe('compact: counts and tool names per talk; full: each talk’s tree'),
        offset: z.number().int().min(0).default(0).describe('the first talk to return (0-based)'),
        limit: z.number().int().min(1).max(100).default(20).describe('most talks to return'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ session, detail, offset, limit }) => {
      const { graph, session: id } = await sessionNamed(ctx.storeDir, session);
      // The talks of the page read with all within them; of the others, the top of the tree alone.
      const onPage = (view: ConversationView) =>
        talksOf(conversationDocument(view).tree)
          .slice(offset, offset + limit)
          .map((t) => t.node.iri);
      const document = conversationDocument(await readView(graph, id, (query) => ctx.graph.rows(query), onPage));
      const talks = talksOf(document.tree);
      const page = talks.slice(offset, offset + limit);
      return answer({
        header: document.header,
        segments: document.segments.length,
        unresolved: document.unresolved.length,
        talks: talks.length,
        offset,
        shown: page.length,
        leftOut: Math.max(0, talks.length - offset - page.length),
        page: page.map((t) => (detail === 'full' ? full(t) : compact(t))),
      });
    },
  );
}

/** Every talk under the root, in tree order (stream by stream), with the stream it is in. */
function talksOf(root: TreeDocument): Talk[] {
  const talks: Talk[] = [];
  const walk = (node: TreeDocument, stream: string) => {
    if (node.kind === 'talk') talks.push({ stream, node });
    else for (const child of node.children) walk(child, node.kind === 'stream' ? node.label : stream);
  };
  walk(root, '');
  return talks;
}

function nodes(node: TreeDocument): TreeDocument[] {
  return [node, ...node.children.flatMap(nodes)];
}

function compact({ stream, node }: Talk) {
  const all = nodes(node);
  const count = (kind: string) => all.filter((n) => n.kind === kind).length;
  return {
    talk: clip(node.label, 300),
    iri: node.iri,
    stream,
    line: node.line,
    runs: count('run'),
    calls: count('llm.call'),
    tools: all.filter((n) => n.kind === 'tool' || n.kind === 'agent.call').map((n) => n.label),
  };
}

function full({ stream, node }: Talk) {
  const tree = (n: TreeDocument): unknown => ({
    kind: n.kind,
    ...(n.label ? { label: clip(n.label, 300) } : {}),
    iri: n.iri,
    ...(n.unresolved ? { unresolved: true } : {}),
    ...(n.children.length ? { children: n.children.map(tree) } : {}),
  });
  return { stream, line: node.line, ...(tree(node) as object) };
}
