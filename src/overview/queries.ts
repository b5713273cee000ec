import { sessionTitlePattern } from '../model/session-title.ts';
import { instancePathOf } from '../rdf/iri.ts';
import { PROJECT_OF_PATH } from '../usage/query.ts';

/**
 * The questions /overview answers, each one SPARQL query aggregated by the store (the page only
 * draws what comes back, and links each chart to its query in the query page). Token and cost
 * figures are `weave usage`'s own queries (src/usage/query.ts), so the page and the CLI agree.
 * Patterns read the default graph, the union of the sessions as a set: the server's workers hold it
 * so with no rewrite (src/store/restated.ts), where `GRAPH ?g` would have every copy put back
 * first (SESSIONS took 421 ms so on the corpus, 83 ms over the union, the same rows). A constant
 * is compared in a FILTER, not matched in the pattern: given `weave:toolIsError true`, Oxigraph
 * started from every error and joined back (657 ms, against 23). Nodes are counted by their
 * IRI after the soul (instancePathOf): a session two machines read into one store is held under
 * each one's soul, and counts once.
 */

export const SESSIONS = `# Every session: its title, project folder, first and last record, and how many turns it holds.
SELECT ?session ?title ?project ?start ?end ?turns WHERE {
  {
    SELECT ?session (MIN(?time) AS ?start) (MAX(?time) AS ?end) (COUNT(DISTINCT ?turn) AS ?turns) WHERE {
      ?transcript weave:sessionId ?session ; weave:hasEvent ?node . ?node a weave:Turn ; weave:timestamp ?time
      BIND(${instancePathOf('?node')} AS ?turn)
    } GROUP BY ?session
  }
  OPTIONAL {
    SELECT ?session (MIN(?folder) AS ?project) (MAX(?named) AS ?title) WHERE {
      ?transcript weave:sessionId ?session ; weave:sourcePath ?path .
      OPTIONAL { ${sessionTitlePattern('?transcript', '?name')} }
      BIND(${PROJECT_OF_PATH} AS ?folder)
      BIND(COALESCE(?name, "") AS ?named)
    } GROUP BY ?session
  }
}
ORDER BY DESC(?start)
`;

/** Tool calls, and how many the runtime marked as errors (is_error on their result), per `key`. */
function toolUse(key: 'tool' | 'server'): string {
  const server =
    key === 'server'
      ? `
  FILTER(STRSTARTS(?tool, "mcp__"))
  BIND(STRAFTER(?tool, "mcp__") AS ?rest)
  BIND(IF(CONTAINS(?rest, "__"), STRBEFORE(?rest, "__"), ?rest) AS ?server)`
      : '';
  return `# Calls per ${key === 'tool' ? 'tool' : 'MCP server (mcp__<server>__<tool>)'}, and the share whose result the runtime marked as an error.
SELECT ?${key} (COUNT(DISTINCT ?use) AS ?calls) (COUNT(DISTINCT ?failed) AS ?errors)
       (ROUND(1000 * xsd:decimal(COUNT(DISTINCT ?failed)) / COUNT(DISTINCT ?use)) / 1000 AS ?failureRate)
WHERE {
  ?block a weave:ToolUseBlock ; weave:toolName ?tool .
  BIND(${instancePathOf('?block')} AS ?use)
  OPTIONAL { ?result weave:toolUseRef ?block ; weave:toolIsError ?isError FILTER(?isError = true) BIND(${instancePathOf('?block')} AS ?failed) }${server}
}
GROUP BY ?${key}
ORDER BY DESC(?calls) ?${key}
`;
}

export const TOOLS = toolUse('tool');
export const MCP_SERVERS = toolUse('server');

export const COMPACTIONS = `# Compactions per day (UTC): whole-context compactions, and microcompactions (old tool output cleared in place).
SELECT ?day ?kind (COUNT(DISTINCT ?compaction) AS ?compactions) WHERE {
  ?node a weave:Compaction ; prov:generated ?boundary .
  ?boundary a weave:SystemEvent ; weave:timestamp ?at .
  BIND(${instancePathOf('?node')} AS ?compaction)
  BIND(IF(EXISTS { ?node a weave:Microcompaction }, "microcompact", "compact") AS ?kind)
  BIND(SUBSTR(STR(?at), 1, 10) AS ?day)
}
GROUP BY ?day ?kind
ORDER BY ?day ?kind
`;

export const FILES = `# The files edited most: Edit, MultiEdit, Write and NotebookEdit calls per file path, and in how many sessions.
SELECT ?path (COUNT(DISTINCT ?use) AS ?edits) (COUNT(DISTINCT ?session) AS ?sessions) WHERE {
  ?block a weave:ToolUseBlock ; weave:toolName ?tool ; weave:toolInput ?input .
  VALUES ?tool { "Edit" "MultiEdit" "Write" "NotebookEdit" }
  ?event weave:hasContentBlock ?block .
  ?transcript weave:hasEvent ?event ; weave:sessionId ?session .
  # After the patterns: a BIND between them splits the join, which Oxigraph then plans past 30 s.
  BIND(${instancePathOf('?block')} AS ?use)
  BIND(REPLACE(STR(?input), "^.*?\\"(file_path|notebook_path)\\"\\\\s*:\\\\s*\\"([^\\"]*)\\".*$", "$2", "s") AS ?path)
  FILTER(?path != STR(?input))
}
GROUP BY ?path
ORDER BY DESC(?edits) ?path
LIMIT 20
`;
