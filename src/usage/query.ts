import { sessionTitlePattern } from '../model/session-title.ts';
import { instancePathOf } from '../rdf/iri.ts';
import { CENTS_DIVISOR, pricesValues, type PriceTable } from './prices.ts';

/**
 * The SPARQL behind `weave usage`. Every figure is the graph's: a provider call's usage is that
 * of its last fragment (`weave:lastFragment`; fragments repeat or grow the usage, so summing
 * records over-counts, and the first fragment under-counts output). Each API call counts once:
 * calls are keyed by their message.id and requestId literals (as ccusage keys them), so a call
 * whose records sit in several sessions (a fork, a resumed or copied file) is one call, counted
 * in the first of those sessions by id. Responses Claude Code wrote itself (model <synthetic>)
 * are not model output. Days and months are UTC, as the timestamps are written.
 */

export interface UsageFilter {
  /** First day, YYYY-MM-DD, inclusive. */
  since?: string;
  /** Last day, YYYY-MM-DD, inclusive. */
  until?: string;
  /** Keep models whose id contains this text. */
  model?: string;
  /** Keep sessions whose project folder name contains this text. */
  project?: string;
  /** Only the calls counted in this session (its id). */
  session?: string;
}

type Grouping = 'day' | 'month' | 'session' | 'call';

/**
 * The project of a transcript: Claude Code's project folder, the one its file sits in, or for a
 * sub-agent's file (<project>/<session>/subagents/…) the one above the session's folder.
 */
export const PROJECT_OF_PATH = `IF(CONTAINS(STR(?path), "/subagents/"),
      REPLACE(STR(?path), "^(.*/)?([^/]+)/[^/]+/subagents/.*$", "$2"),
      REPLACE(STR(?path), "^(.*/)?([^/]+)/[^/]+$", "$2"))`;

const literal = (text: string) => JSON.stringify(text);

/**
 * One row per API call: ?key ?session ?model ?time ?in ?out ?cw ?cr, and ?ch, the one-hour part
 * of ?cw. A call is keyed by its message.id and requestId, as ccusage keys them (else by its
 * IRI after the soul: a session two machines read into one store is held under each one's soul). The copies of a call in several sessions agree; where they do not (hand-written
 * transcripts reusing ids), each figure is the largest, as fragments only ever grow. Patterns sit
 * in GRAPH ?g: over the union default graph Oxigraph plans this join some 40 times slower. The
 * session and model are taken as STR: Virtuoso 7.2's MIN and MAX of a literal give a value its
 * string functions and joins refuse.
 */
function callsPattern(filter: UsageFilter): string {
  const project = filter.project
    ? `
        ?transcript weave:sourcePath ?path .
        FILTER(CONTAINS(${PROJECT_OF_PATH}, ${literal(filter.project)}))`
    : '';
  return `
  {
    SELECT ?key (MIN(STR(?s)) AS ?session) (MAX(STR(?m)) AS ?model) (MAX(?t) AS ?time)
           (MAX(?i) AS ?in) (MAX(?o) AS ?out) (MAX(?w) AS ?cw) (MAX(?h) AS ?ch) (MAX(?r) AS ?cr)
    WHERE {
      GRAPH ?g {
        ?call a weave:LlmCall ; weave:lastFragment ?last .
        FILTER NOT EXISTS { ?call a weave:SyntheticMessage }
        ?last weave:model ?m ; weave:timestamp ?t ; weave:hasUsage ?usage .
        OPTIONAL { ?usage weave:inputTokens ?i0 }
        OPTIONAL { ?usage weave:outputTokens ?o0 }
        OPTIONAL { ?usage weave:cacheCreationInputTokens ?w0 }
        # Stated where the record splits its cache writes; an older record's are all 5-minute ones.
        OPTIONAL { ?usage weave:cacheCreation1hInputTokens ?h0 }
        OPTIONAL { ?usage weave:cacheReadInputTokens ?r0 }
        OPTIONAL { ?last weave:messageId ?mid }
        OPTIONAL { ?last weave:requestId ?rid }
        ?transcript weave:hasEvent ?last ; weave:sessionId ?s .${project}
      }
      FILTER(?m != "<synthetic>")
      BIND(CONCAT(COALESCE(?mid, ${instancePathOf('?call')}), " ", COALESCE(?rid, "")) AS ?key)
      # A count is a whole number: one a transcript wrote otherwise (1e400, 1.5) is kept in the graph, not counted.
      BIND(COALESCE(IF(DATATYPE(?i0) = xsd:integer, ?i0, 0), 0) AS ?i)
      BIND(COALESCE(IF(DATATYPE(?o0) = xsd:integer, ?o0, 0), 0) AS ?o)
      BIND(COALESCE(IF(DATATYPE(?w0) = xsd:integer, ?w0, 0), 0) AS ?w)
      BIND(COALESCE(IF(DATATYPE(?h0) = xsd:integer, ?h0, 0), 0) AS ?h)
      BIND(COALESCE(IF(DATATYPE(?r0) = xsd:integer, ?r0, 0), 0) AS ?r)
    } GROUP BY ?key
  }`;
}

/** Filters on the call's day and model, and its cost from the price table. */
function pricedCalls(filter: UsageFilter, prices: PriceTable): string {
  const filters = [
    filter.since ? `FILTER(?day >= ${literal(filter.since)})` : '',
    filter.until ? `FILTER(?day <= ${literal(filter.until)})` : '',
    filter.model ? `FILTER(CONTAINS(?model, ${literal(filter.model)}))` : '',
    filter.session ? `FILTER(?session = ${literal(filter.session)})` : '',
  ].filter(Boolean);
  return `${callsPattern(filter)}
  BIND(SUBSTR(STR(?time), 1, 10) AS ?day)
  ${filters.join('\n  ')}
  # Price: the model's own entry, else its family's (the id without a -YYYYMMDD suffix), as priceOf
  # reads it: two lookups joined on the id, since Virtuoso 7.2 matches no row of an OPTIONAL whose
  # FILTER compares the table with the sub-select's ?model (every cost was 0 there).
  BIND(REPLACE(?model, "-[0-9]{8}$", "") AS ?family)
  OPTIONAL {
    ${pricesValues(prices, '?model', 'Own')}
  }
  OPTIONAL {
    ${pricesValues(prices, '?family', 'Family')}
  }
  BIND(COALESCE(?pInOwn, ?pInFamily) AS ?pIn)
  BIND(COALESCE(?pOutOwn, ?pOutFamily) AS ?pOut)
  BIND(COALESCE(?pCacheWriteOwn, ?pCacheWriteFamily) AS ?pCacheWrite)
  BIND(COALESCE(?pCacheWrite1hOwn, ?pCacheWrite1hFamily) AS ?pCacheWrite1h)
  BIND(COALESCE(?pCacheReadOwn, ?pCacheReadFamily) AS ?pCacheRead)
  # The one-hour writes at their rate, never more than all the writes (prices.ts's cacheWrites); the rest at the 5-minute rate.
  BIND(IF(?ch > ?cw, ?cw, ?ch) AS ?oneHour)
  # Divided by a decimal: an integer over an integer is an integer on some engines (Virtuoso), a cost of 0.
  BIND((?in * COALESCE(?pIn, 0) + ?out * COALESCE(?pOut, 0) + (?cw - ?oneHour) * COALESCE(?pCacheWrite, 0)
        + ?oneHour * COALESCE(?pCacheWrite1h, 0) + ?cr * COALESCE(?pCacheRead, 0)) / ${CENTS_DIVISOR}.0 AS ?cost)`;
}

/**
 * The usage query: per call (`call`), or summed per period and model (`day`, `month`,
 * `session`). Summed rows carry ?period ?model ?calls ?input ?output ?cacheCreation ?cacheRead
 * ?cost ?lastTime; sessions also ?project and ?title.
 */
export function usageQuery(by: Grouping, filter: UsageFilter, prices: PriceTable): string {
  const header = `# Tokens and cost ${by === 'call' ? 'per API call' : `per ${by} and model`}: each API call once (keyed by its message.id),
# with the usage of its last fragment; cost from data/prices.json (USD per million tokens).\n`;
  if (by === 'call') {
    return `${header}SELECT ?key ?session ?model ?time ?in ?out ?cw ?cr ?cost WHERE {${pricedCalls(filter, prices)}
}
ORDER BY ?time ?key
`;
  }
  const period = by === 'day' ? '?day' : by === 'month' ? 'SUBSTR(?day, 1, 7)' : '?session';
  const grouped = `SELECT ?period ?model (COUNT(?key) AS ?calls) (SUM(?in) AS ?input) (SUM(?out) AS ?output)
         (SUM(?cw) AS ?cacheCreation) (SUM(?cr) AS ?cacheRead) (SUM(?cost) AS ?cost) (MAX(?time) AS ?lastTime)
  WHERE {${pricedCalls(filter, prices)}
    BIND(${period} AS ?period)
  }
  GROUP BY ?period ?model`;
  if (by !== 'session') return `${header}${grouped}\nORDER BY ?period ?model\n`;
  return `${header}SELECT ?period ?project ?title ?model ?calls ?input ?output ?cacheCreation ?cacheRead ?cost ?lastTime WHERE {
  {
  ${grouped}
  }
  OPTIONAL {
    SELECT ?period (MIN(?folder) AS ?project) (MAX(?named) AS ?title) WHERE {
      GRAPH ?g {
        ?transcript weave:sessionId ?period ; weave:sourcePath ?path .
        # The title is the main transcript's (a child agent's is its own, unless the main file is absent).
        OPTIONAL { ${sessionTitlePattern('?transcript', '?name')} }
      }
      BIND(${PROJECT_OF_PATH} AS ?folder)
      # Oxigraph's MAX over a group holding an unbound value is unbound: "" stands for none.
      BIND(COALESCE(?name, "") AS ?named)
    } GROUP BY ?period
  }
}
ORDER BY ?period ?model
`;
}
