import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { JsonTerm } from '../../query/table.ts';
import { isAbsoluteIri } from '../../server/http/protocol.ts';
import { describeData } from '../../server/description.ts';
import type { McpContext } from '../context.ts';
import { answer, curie, fitted, termText } from '../fit.ts';

/**
 * `describe`: one resource as the describe page shows it (src/server/description.ts): its
 * statements, its content blocks and what links to it; named by its IRI, or by the id the
 * transcript gave it (a session's id, a record's uuid, a message id for its LLM call, a tool_use id
 * for its tool call).
 */

const DESCRIPTION = `Everything the graph states about one thing from a past session: a turn, an LLM call, a tool call, a content block, a session…
Give its IRI (as \`search\`, \`conversation\` and \`sparql\` return them, e.g. urn:soul:local:Weave/Turn/…) or an id from the transcript: a session id (as \`sessions\` returns them), a record's uuid, a message id (msg_…, names its LLM call) or a tool_use id (toolu_…, names its tool call).
Returns its statements (predicate → value), its content blocks with their texts (long texts cut), what links to it, and the graphs that hold it.`;

const STATEMENTS = 200;
const INCOMING = 50;

/** The things an id names: a session, a record, the LLM call a message id is, the tool call a tool_use id is. */
const byId = (id: string) => `SELECT DISTINCT ?s WHERE {
  { ?s a weave:Session ; dcterms:identifier ${JSON.stringify(id)} }
  UNION { ?s weave:eventId ${JSON.stringify(id)} }
  UNION { ?turn weave:messageId ${JSON.stringify(id)} . ?s weave:firstFragment ?turn }
  UNION { ?s a weave:ToolCall ; weave:toolUseId ${JSON.stringify(id)} }
} ORDER BY ?s LIMIT 20`;

export function registerDescribe(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'describe',
    {
      title: 'Describe a turn, call or tool',
      description: DESCRIPTION,
      inputSchema: {
        target: z.string().min(1).describe('an IRI (with or without <>), or a session id, a record uuid, a msg_… or toolu_… id'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ target }) => {
      const given = target.trim().replace(/^<(.*)>$/, '$1');
      const named = isAbsoluteIri(given) ? [given] : (await ctx.graph.rows(byId(given))).map((r) => r.s);
      if (!named.length)
        throw new Error(`nothing in the store has the id "${given}": give an IRI, a session id, a record uuid, a msg_… or a toolu_… id`);
      const iri = named[0];
      const d = await describeData((query) => ctx.graph.select(query), iri);
      if (!d.statements.length && !d.incoming.length) throw new Error(`the store states nothing about <${iri}>`);
      // A class union (a term's domain or range) by its members, as the describe page names it.
      const union = (o: JsonTerm) => (o.type === 'bnode' ? d.unions?.[o.value]?.map(curie).join(' or ') : undefined);
      const statements = fitted(
        d.statements.map((s) => ({ p: curie(s.p), o: s.o.type === 'uri' ? curie(s.o.value) : (union(s.o) ?? termText(s.o)) })),
        STATEMENTS,
      );
      // A node with thousands of statements is read a predicate's first objects at a time: the rest are left out too.
      const unread = Object.entries(d.objects ?? {}).reduce((k, [p, n]) => k + n - d.statements.filter((s) => s.p === p).length, 0);
      const incoming = fitted(
        d.incoming.map((s) => ({ s: s.s, p: curie(s.p) })),
        INCOMING,
        10_000,
      );
      return answer({
        iri,
        ...(named.length > 1 ? { alsoNamed: named.slice(1) } : {}),
        statements: statements.kept,
        ...(statements.leftOut + unread ? { statementsLeftOut: statements.leftOut + unread } : {}),
        blocks: d.blocks.map((b) => ({
          iri: b.iri,
          statements: b.statements.map((s) => ({ p: curie(s.p), o: s.o.type === 'uri' ? curie(s.o.value) : termText(s.o) })),
        })),
        incoming: incoming.kept,
        incomingLeftOut: incoming.leftOut,
        ...(d.incomingTruncated ? { incomingTruncated: true } : {}),
        graphs: d.graphs,
      });
    },
  );
}
