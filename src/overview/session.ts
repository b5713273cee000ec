import { sessionTitlePattern } from '../model/session-title.ts';
import { PROJECT_OF_PATH } from '../usage/query.ts';

/**
 * What the session page (/describe of a transcript) shows above its statements: the session's
 * title, project, time span and counts, and its prompts in time order; tokens and cost come from
 * `weave usage`'s session query narrowed to it. Each is one SPARQL query over the session's graph.
 */

const literal = (text: string) => JSON.stringify(text);

/**
 * A step of a compaction summariser's stream (one that produced a compaction's summary): its
 * opening message is the runtime asking for the summary, no prompt anyone typed.
 */
const SUMMARISER_STEP = (step: string) => `${step} weave:within+ ?stream . ?stream a weave:Stream ; weave:produces ?summary`;

export function sessionFactsQuery(graph: string, session: string): string {
  return `# One session at a glance: title, project, first and last record, and how many of each kind it holds.
SELECT ?title ?project ?start ?end ?transcripts ?events ?turns ?prompts ?calls ?tools ?compactions ?microcompactions WHERE {
  # (Oxigraph's MIN and MAX are unbound over a group holding an unbound value: times are required here.)
  { SELECT (MIN(?time) AS ?start) (MAX(?time) AS ?end) WHERE { GRAPH <${graph}> { ?t weave:sessionId ${literal(session)} ; weave:hasEvent ?e . ?e weave:timestamp ?time } } }
  { SELECT (COUNT(DISTINCT ?event) AS ?events) WHERE { GRAPH <${graph}> { ?t weave:sessionId ${literal(session)} ; weave:hasEvent ?event } } }
  { SELECT (COUNT(DISTINCT ?t) AS ?transcripts) WHERE { GRAPH <${graph}> { ?t weave:sessionId ${literal(session)} } } }
  { SELECT (COUNT(DISTINCT ?turn) AS ?turns) WHERE { GRAPH <${graph}> { ?turn a weave:Turn } } }
  { SELECT (COUNT(DISTINCT ?prompt) AS ?prompts) WHERE { GRAPH <${graph}> { ?prompt a weave:ExternalMessage FILTER NOT EXISTS { ${SUMMARISER_STEP('?prompt')} } } } }
  { SELECT (COUNT(DISTINCT ?call) AS ?calls) WHERE { GRAPH <${graph}> { ?call a weave:LlmCall FILTER NOT EXISTS { ?call a weave:SyntheticMessage } } } }
  { SELECT (COUNT(DISTINCT ?use) AS ?tools) WHERE { GRAPH <${graph}> { ?use a weave:ToolUseBlock } } }
  # A microcompaction clears old tool output in place: the context goes on, no new epoch. Counted apart.
  { SELECT (COUNT(DISTINCT ?c) AS ?compactions) WHERE { GRAPH <${graph}> { ?c a weave:Compaction FILTER NOT EXISTS { ?c a weave:Microcompaction } } } }
  { SELECT (COUNT(DISTINCT ?c) AS ?microcompactions) WHERE { GRAPH <${graph}> { ?c a weave:Microcompaction } } }
  OPTIONAL {
    SELECT (MIN(?folder) AS ?project) (MAX(?named) AS ?title) WHERE {
      GRAPH <${graph}> {
        ?t weave:sessionId ${literal(session)} ; weave:sourcePath ?path .
        OPTIONAL { ${sessionTitlePattern('?t', '?name')} }
      }
      BIND(${PROJECT_OF_PATH} AS ?folder)
      BIND(COALESCE(?name, "") AS ?named)
    }
  }
}
`;
}

/**
 * The session's prompts (what came from outside the agent: typed, or the text that opened a run),
 * in time order; ?compaction is true on a compaction's request for its summary (unbound on a prompt).
 */
export function sessionPromptsQuery(graph: string): string {
  return `# The prompts of a session, in time order: each external message with its first text, and whether it asked for a compaction's summary.
SELECT ?turn ?time (SAMPLE(?words) AS ?text) (SAMPLE(?asked) AS ?compaction) WHERE {
  GRAPH <${graph}> {
    ?turn a weave:ExternalMessage ; weave:timestamp ?time .
    OPTIONAL { ?turn weave:hasContentBlock ?block . ?block weave:blockOrder ?order ; weave:text ?words FILTER(?order = 0) }
    OPTIONAL { ${SUMMARISER_STEP('?turn')} BIND(true AS ?asked) }
  }
}
GROUP BY ?turn ?time
ORDER BY ?time ?turn
LIMIT 200
`;
}
