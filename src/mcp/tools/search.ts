import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { stampOf } from '../../derive/derivation.ts';
import { searchIndex } from '../../search/derivation.ts';
import type { DocKind } from '../../search/docs.ts';
import { HeldIndex, indexIsCurrent } from '../../search/index.ts';
import { readManifest } from '../../store/manifest.ts';
import type { McpContext } from '../context.ts';
import { answer } from '../fit.ts';
import { sessionNamed } from '../sessions.ts';

/**
 * `search`: `weave search` for an agent: the store's full-text index (src/search/index.ts), read
 * as it is (this server writes nothing; `weave ingest` keeps the index current), held as the
 * manifest names it (HeldIndex: loaded again only when the manifest names a new index file, the
 * documents the file lags behind read in).
 */

const DESCRIPTION = `Full-text search (BM25 ranked) over everything written in past Claude Code sessions: what people and the model wrote, tool inputs and tool results.
Every word must match (the last as a prefix); when nothing matches them all, any word will do.
Each hit gives the session (id and title), the time, the kind of text, the tool, a snippet and the IRI of its turn: pass it to \`describe\` for the turn's statements, or the session to \`conversation\` for its structure.`;

const KINDS: Record<string, DocKind> = { text: 'text', 'tool-input': 'tool input', 'tool-result': 'tool result' };

export function registerSearch(server: McpServer, ctx: McpContext): void {
  const held = new HeldIndex(ctx.storeDir);
  const index = async () => {
    const manifest = await readManifest(ctx.storeDir);
    const current = !!manifest && (await indexIsCurrent(ctx.storeDir, manifest, stampOf(searchIndex)));
    return { index: await held.at(manifest), current };
  };
  // Read now, while the agent is still starting: a corpus's index takes seconds to load.
  index().catch(() => undefined);
  server.registerTool(
    'search',
    {
      title: 'Search past sessions',
      description: DESCRIPTION,
      inputSchema: {
        text: z.string().min(1).describe('the words to look for'),
        limit: z.number().int().min(1).max(50).default(10).describe('most hits to return'),
        kind: z
          .array(z.enum(['text', 'tool-input', 'tool-result']))
          .optional()
          .describe('only these kinds of text'),
        session: z.string().optional().describe('only this session (its id or a unique prefix of one)'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ text, limit, kind, session }) => {
      const only = session === undefined ? undefined : (await sessionNamed(ctx.storeDir, session)).session;
      const { index: found, current } = await index();
      const { hits, total } = await found.search(text, { limit, kinds: kind?.map((k) => KINDS[k]), session: only });
      return answer({
        query: text,
        total,
        leftOut: total - hits.length,
        ...(current ? {} : { note: 'the index lags behind the store: run weave ingest (or weave search once) to bring it up to date' }),
        hits: hits.map((h) => ({
          session: h.session,
          title: h.title ?? null,
          time: h.time ?? null,
          kind: h.kind,
          ...(h.role ? { role: h.role } : {}),
          ...(h.tool ? { tool: h.tool } : {}),
          snippet: h.snippet,
          iri: h.event,
          ...(h.alsoIn ? { alsoIn: h.alsoIn } : {}),
          ...(h.alsoInStreams ? { alsoInStreams: h.alsoInStreams } : {}),
        })),
      });
    },
  );
}
