import { selectRows, type StoreQueries } from '../../src/store/queries.ts';

/**
 * The corpus's figures, as queries any SPARQL 1.1 store answers (no RDF 1.2 syntax): turns,
 * content blocks, tool pairs, LLM calls, and the token totals of the last fragment of each call
 * (the model test's query, summed over the store; as weave usage counts them, whole numbers only:
 * hardening/types' 1e400 and 1.5 are kept in the graph, but no two engines sum them alike).
 * Both stores must answer each the same.
 */
export const FIGURES: Record<string, string> = {
  turns: 'SELECT (COUNT(*) AS ?n) WHERE { ?t a weave:Turn }',
  blocks: 'SELECT (COUNT(*) AS ?n) WHERE { ?b a weave:ContentBlock }',
  toolPairs: 'SELECT (COUNT(*) AS ?n) WHERE { ?r weave:toolUseRef ?u }',
  calls: 'SELECT (COUNT(*) AS ?n) WHERE { ?call a weave:LlmCall }',
  tokens: `SELECT (SUM(?in) AS ?input) (SUM(?out) AS ?output) (SUM(?cw) AS ?cacheCreation) (SUM(?cr) AS ?cacheRead)
    WHERE { ?call a weave:LlmCall ; weave:lastFragment ?last FILTER NOT EXISTS { ?call a weave:SyntheticMessage }
      ?last weave:hasUsage ?u
      OPTIONAL { ?u weave:inputTokens ?i0 } OPTIONAL { ?u weave:outputTokens ?o0 }
      OPTIONAL { ?u weave:cacheCreationInputTokens ?w0 } OPTIONAL { ?u weave:cacheReadInputTokens ?r0 }
      BIND(COALESCE(IF(DATATYPE(?i0) = xsd:integer, ?i0, 0), 0) AS ?in) BIND(COALESCE(IF(DATATYPE(?o0) = xsd:integer, ?o0, 0), 0) AS ?out)
      BIND(COALESCE(IF(DATATYPE(?w0) = xsd:integer, ?w0, 0), 0) AS ?cw) BIND(COALESCE(IF(DATATYPE(?r0) = xsd:integer, ?r0, 0), 0) AS ?cr) }`,
  sessions: 'SELECT (COUNT(DISTINCT ?id) AS ?n) WHERE { ?t a weave:ClaudeCodeTranscript ; weave:sessionId ?id }',
};

/** Each figure's row, numbers as numbers (stores write 10 or "10"^^xsd:integer alike). */
export async function figures(queries: StoreQueries): Promise<Record<string, Record<string, number>>> {
  const out: Record<string, Record<string, number>> = {};
  for (const [name, query] of Object.entries(FIGURES)) {
    const [row] = await selectRows(queries, query);
    out[name] = Object.fromEntries(Object.entries(row ?? {}).map(([k, v]) => [k, Number(v)]));
  }
  return out;
}

/** Reifiers of triple terms: `rdf:reifies` in RDF 1.2, `a rdf:Statement` in the RDF 1.1 form. */
export const REIFIERS_12 = 'SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r rdf:reifies ?t }';
export const REIFIERS_11 =
  'SELECT (COUNT(DISTINCT ?r) AS ?n) WHERE { ?r a rdf:Statement ; rdf:subject ?s ; rdf:predicate ?p ; rdf:object ?o }';
