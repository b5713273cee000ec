import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { SESSIONS } from '../../overview/queries.ts';
import type { McpContext } from '../context.ts';
import { answer } from '../fit.ts';

/** `sessions`: the sessions the overview page lists (src/overview/queries.ts), newest first, optionally of one project. */

const DESCRIPTION = `Past Claude Code sessions, most recent first: each with its id, title, project folder, first and last turn's time and number of turns.
Optionally only those of a project (text in the project folder's name, e.g. "-home-ada-weave"). Pass a session id to \`conversation\`, \`search\` or \`usage\`.`;

export function registerSessions(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'sessions',
    {
      title: 'Recent sessions',
      description: DESCRIPTION,
      inputSchema: {
        project: z.string().optional().describe('only sessions whose project folder name contains this text'),
        offset: z.number().int().min(0).default(0).describe('sessions to skip (for paging)'),
        limit: z.number().int().min(1).max(200).default(20).describe('most sessions to return'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ project, offset, limit }) => {
      const all = (await ctx.graph.rows(SESSIONS)).filter((r) => project === undefined || (r.project ?? '').includes(project));
      const page = all.slice(offset, offset + limit);
      return answer({
        total: all.length,
        offset,
        shown: page.length,
        leftOut: Math.max(0, all.length - offset - page.length),
        sessions: page.map((r) => ({
          session: r.session,
          title: r.title || null,
          project: r.project ?? null,
          start: r.start,
          end: r.end,
          turns: Number(r.turns),
        })),
      });
    },
  );
}
