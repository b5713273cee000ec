import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { Parser } from 'n3';
import { z } from 'zod';
import { needsFederation } from '../../federation/allow.ts';
import { turtleText } from '../../export/turtle.ts';
import { formatNamed } from '../../query/formats.ts';
import { leadingKeyword } from '../../query/lexer.ts';
import type { JsonResults } from '../../query/table.ts';
import { DEFAULTS } from '../../server/config.ts';
import { HttpError } from '../../server/errors.ts';
import { checkQueryDepth } from '../../server/http/query-depth.ts';
import type { McpContext } from '../context.ts';
import { answer, fitted, termText } from '../fit.ts';

/**
 * `sparql`: a read-only query over the union of the store's graphs, under the endpoint's guards
 * (size of the text, depth, the timeout of the worker that runs it), its answer cut to `limit`
 * rows or triples with a count of what was left out.
 */

const DESCRIPTION = `Run a read-only SPARQL 1.1/1.2 query (SELECT, ASK, CONSTRUCT or DESCRIBE) over the whole graph of Claude Code sessions.
The prefixes weave, rdf, rdfs, xsd, owl, prov, oa, skos and dcterms are predeclared; the default graph is the union of all sessions' graphs.
Read the weave://ontology resource for the classes and properties (weave:Turn, weave:LlmCall, weave:ToolCall, weave:sessionId, weave:timestamp, weave:text, …), and the weave://queries/* resources for worked examples.
SELECT answers rows of {variable: value} (IRIs as <…>, literals as their text), CONSTRUCT/DESCRIBE answer Turtle; at most \`limit\` rows or triples, with the count left out. Updates and SERVICE are refused.`;

/** The first words of SPARQL Update operations (WITH opens a DELETE/INSERT). */
const UPDATES = new Set(['INSERT', 'DELETE', 'LOAD', 'CLEAR', 'CREATE', 'DROP', 'COPY', 'MOVE', 'ADD', 'WITH']);
const SOLUTIONS = 'application/sparql-results+json';
const TRIPLES = 'application/n-triples';

export function registerSparql(server: McpServer, ctx: McpContext): void {
  server.registerTool(
    'sparql',
    {
      title: 'SPARQL over the session graph',
      description: DESCRIPTION,
      inputSchema: {
        query: z.string().min(1).describe('the SPARQL query text'),
        limit: z.number().int().min(1).max(1000).default(200).describe('most rows (SELECT) or triples (CONSTRUCT/DESCRIBE) to return'),
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      const form = guard(query);
      if (form === 'CONSTRUCT' || form === 'DESCRIBE') {
        const lines = (await ctx.graph.ask(query, TRIPLES)).split('\n').filter((l) => l.trim());
        const { kept, leftOut } = fitted(lines, limit);
        return answer({ triples: lines.length, shown: kept.length, leftOut, turtle: turtle(kept) });
      }
      const json = JSON.parse(await ctx.graph.ask(query, SOLUTIONS)) as JsonResults;
      if (form === 'ASK') return answer({ boolean: json.boolean });
      const rows = (json.results?.bindings ?? []).map((b) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, termText(v)])));
      const { kept, leftOut } = fitted(rows, limit);
      return answer({ vars: json.head.vars ?? [], total: rows.length, shown: kept.length, leftOut, rows: kept });
    },
  );
}

/** The query's form, once it passes what the endpoint checks before a worker sees it; else a tool error saying why. */
function guard(query: string): string {
  if (Buffer.byteLength(query) > DEFAULTS.bodyLimitMb * 1e6) throw new Error(`the query is over ${DEFAULTS.bodyLimitMb} MB`);
  const word = leadingKeyword(query);
  if (UPDATES.has(word))
    throw new Error(
      `weave mcp is read-only: ${word} is an update, and updates (INSERT, DELETE, LOAD, CLEAR, DROP, …) are refused; only SELECT, ASK, CONSTRUCT and DESCRIBE run here`,
    );
  if (needsFederation(query, []))
    throw new Error('SERVICE clauses are refused: weave mcp answers from the local store only, and nothing leaves the machine');
  try {
    checkQueryDepth(query, 'query');
  } catch (e) {
    if (e instanceof HttpError) throw new Error(e.message);
    throw e;
  }
  // Anything else that is no query goes on to the store, whose syntax error says where it went wrong.
  return word;
}

/** N-Triples lines as Turtle using the predeclared prefixes, as exports write it: shorter to read. */
function turtle(lines: string[]): string {
  const text = lines.map((l) => `${l}\n`).join('');
  try {
    // The predeclared prefixes are the agent's already: their declarations would only take up its context.
    return turtleText(new Parser({ format: 'N-Triples' }).parse(text), formatNamed('turtle')!, '1.2')
      .replace(/^@prefix .*\n/gm, '')
      .trimStart();
  } catch {
    return text; // what N3 cannot read, the agent reads as N-Triples
  }
}
