/**
 * The Weave card (../shared/spec, the ClaudeCodeTranscript ontology card v0.2) as queries: each
 * statement the card draws is a count, written the way a user would write it from the card, over
 * the union of the graphs. A `holds` count is what the card shows being there (its figure on a
 * fixture is worked out by hand); a `breaks` count is what would contradict the card, and is 0
 * on every graph Weave writes. The claims check is RDF 1.2 (triple terms); every other is plain
 * SPARQL 1.1, so the consumers tests can run them in other stores.
 */

export interface CardCheck {
  /** The card's statement, in its words. */
  statement: string;
  /** What the card shows being there, counted (`?n`). */
  holds: string;
  /** What would contradict the card, counted (`?n`): 0 on every graph Weave writes. */
  breaks: string;
  /** Needs RDF 1.2 triple terms. */
  tripleTerms?: true;
}

export const PREFIXES = `PREFIX weave: <https://repolex.ai/ontology/weave#>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
PREFIX prov: <http://www.w3.org/ns/prov#>
PREFIX oa: <http://www.w3.org/ns/oa#>
`;

const count = (where: string) => `${PREFIXES}SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { ${where} }`;

export const CARD: CardCheck[] = [
  {
    statement: 'Transcript weave:hasEvent Turn',
    holds: count('?t a weave:Transcript ; weave:hasEvent ?x . ?x a weave:Turn'),
    breaks: count('?x a weave:Turn FILTER NOT EXISTS { ?t a weave:Transcript ; weave:hasEvent ?x }'),
  },
  {
    statement: 'Transcript weave:sessionSlug',
    holds: count('?x a weave:Transcript ; weave:sessionSlug ?slug'),
    breaks: count('?x a weave:Transcript FILTER NOT EXISTS { ?x weave:sessionSlug ?slug }'),
  },
  {
    statement: "a sub-agent's Transcript weave:parentTranscript → its session's Transcript",
    holds: count('?x a weave:Transcript ; weave:parentTranscript ?session . ?session a weave:Transcript ; weave:sessionSlug ?slug'),
    breaks: count('?x weave:parentTranscript ?session FILTER NOT EXISTS { ?session a weave:Transcript ; weave:sessionSlug ?slug }'),
  },
  {
    statement: 'rdf:type weave:Turn (→ UserTurn | AssistantTurn)',
    holds: count('?x a weave:Turn { ?x a weave:UserTurn } UNION { ?x a weave:AssistantTurn }'),
    breaks: count('?x a weave:Turn FILTER NOT EXISTS { ?x a weave:UserTurn } FILTER NOT EXISTS { ?x a weave:AssistantTurn }'),
  },
  {
    statement: 'weave:role "assistant" (one role per turn, its kind\'s)',
    holds: count('?x a weave:Turn ; weave:role ?role'),
    breaks: count(`?x a weave:Turn
      { FILTER NOT EXISTS { ?x weave:role ?any } }
      UNION { ?x weave:role ?r1 , ?r2 FILTER(?r1 != ?r2) }
      UNION { ?x a weave:UserTurn ; weave:role ?r FILTER(?r != "user") }
      UNION { ?x a weave:AssistantTurn ; weave:role ?r FILTER(?r != "assistant") }`),
  },
  {
    statement: 'weave:timestamp "…"^^xsd:dateTime, the time anchor',
    holds: count('?x a weave:Turn ; weave:timestamp ?time FILTER(DATATYPE(?time) = xsd:dateTime)'),
    // A text that is no valid time stays a string (the hardening fixtures have some); a valid one never does.
    breaks: count(`?x a weave:Turn ; weave:timestamp ?time FILTER(DATATYPE(?time) != xsd:dateTime
      && REGEX(STR(?time), "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}([.][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})$"))`),
  },
  {
    statement: 'weave:parentEvent → …/Turn/<prev>, the reply-to spine',
    holds: count('?x a weave:Turn ; weave:parentEvent ?prev'),
    breaks: count('?x weave:parentEvent ?prev FILTER NOT EXISTS { ?prev a weave:Event }'),
  },
  {
    statement: 'weave:model (AssistantTurn only)',
    holds: count('?x a weave:AssistantTurn ; weave:model ?model'),
    breaks: count('?x a weave:Turn ; weave:model ?model FILTER NOT EXISTS { ?x a weave:AssistantTurn }'),
  },
  {
    statement: 'weave:hasContentBlock → [ordered blocks], blockOrder 0, 1, 2…',
    holds: count('?turn a weave:Turn ; weave:hasContentBlock ?x . ?x weave:blockOrder ?order'),
    breaks: `${PREFIXES}SELECT (COUNT(*) AS ?n) WHERE {
      { SELECT ?owner (COUNT(DISTINCT ?block) AS ?blocks) (MAX(?order) AS ?last) (COUNT(DISTINCT ?order) AS ?orders)
        WHERE { ?owner weave:hasContentBlock ?block . ?block weave:blockOrder ?order } GROUP BY ?owner }
      FILTER(?last != ?blocks - 1 || ?orders != ?blocks) }`,
  },
  {
    statement: 'TextBlock weave:text',
    holds: count('?x a weave:TextBlock ; weave:text ?text'),
    breaks: count('?x a weave:TextBlock FILTER NOT EXISTS { ?x weave:text ?text } FILTER NOT EXISTS { ?x weave:hasContent ?c }'),
  },
  {
    statement: 'ThinkingBlock {thinking, signature}',
    holds: count('?x a weave:ThinkingBlock { ?x weave:text ?t } UNION { ?x weave:signature ?s } UNION { ?x weave:hasContent ?c }'),
    breaks: count(
      '?x a weave:ThinkingBlock FILTER NOT EXISTS { ?x weave:text ?t } FILTER NOT EXISTS { ?x weave:signature ?s } FILTER NOT EXISTS { ?x weave:hasContent ?c }',
    ),
  },
  {
    statement: 'ToolUseBlock {id, name, input}',
    holds: count('?x a weave:ToolUseBlock ; weave:toolUseId ?id ; weave:toolName ?name'),
    breaks: count('?x a weave:ToolUseBlock FILTER (NOT EXISTS { ?x weave:toolUseId ?id } || NOT EXISTS { ?x weave:toolName ?name })'),
  },
  {
    statement: 'ToolUseBlock {…, caller}',
    holds: count('?x a weave:ToolUseBlock ; weave:caller ?caller'),
    // The caller is stated, not left in the block's extraJson; the tool use it names is one.
    breaks: count(`{ ?x a weave:ToolUseBlock ; weave:extraJson ?json FILTER(CONTAINS(STR(?json), '"caller":{"type"'))
        FILTER NOT EXISTS { ?x weave:caller ?caller } }
      UNION { ?x weave:callerToolUse ?use FILTER NOT EXISTS { ?use a weave:ToolUseBlock } }`),
  },
  {
    statement: 'ToolResultBlock {tool_use_id, content, is_error}',
    holds: count('?x a weave:ToolResultBlock ; weave:toolUseId ?id ; weave:toolIsError ?error'),
    breaks: count('?x a weave:ToolResultBlock FILTER (NOT EXISTS { ?x weave:toolUseId ?id } || NOT EXISTS { ?x weave:toolIsError ?e })'),
  },
  {
    statement: 'ToolUseBlock and ToolResultBlock pair by tool_use_id',
    holds: count('?use a weave:ToolUseBlock ; weave:toolUseId ?id . ?x a weave:ToolResultBlock ; weave:toolUseId ?id'),
    // A result's toolUseRef, where its session resolves it, names the use of the same id.
    breaks: count(
      '?x a weave:ToolResultBlock ; weave:toolUseId ?id ; weave:toolUseRef ?use FILTER NOT EXISTS { ?use weave:toolUseId ?id }',
    ),
  },
  {
    statement: 'ImageBlock source{type, media_type, data}: the federation hook',
    holds: count('?x a weave:ImageBlock ; weave:mediaType ?type'),
    breaks: count('?x a weave:ImageBlock FILTER NOT EXISTS { ?x weave:mediaType ?type }'),
  },
  {
    statement: 'Compaction: a prov:Activity',
    holds: count('?x a weave:Compaction , prov:Activity'),
    breaks: count('?x a weave:Compaction FILTER NOT EXISTS { ?x a prov:Activity }'),
  },
  {
    statement: 'oa:Annotation: attributed, timed, typed, targeting a source at an event, with a body',
    holds: count(`?x a oa:Annotation ; prov:wasAttributedTo ?who ; prov:generatedAtTime ?when ; weave:eventType ?type ;
      oa:hasTarget ?target ; oa:hasBody ?body . ?target oa:hasSource ?source ; weave:atEvent ?event`),
    // Its time is its event's: a record without a valid timestamp gives none. A finding in a line
    // that is not a record (the secret reader reads those too) is at that line: no turn holds it.
    breaks: count(`?x a oa:Annotation FILTER (NOT EXISTS { ?x prov:wasAttributedTo ?who }
      || (NOT EXISTS { ?x prov:generatedAtTime ?when }
          && EXISTS { ?x oa:hasTarget ?t . ?t weave:atEvent ?e . ?e weave:timestamp ?time FILTER(DATATYPE(?time) = xsd:dateTime) })
      || NOT EXISTS { ?x weave:eventType ?type } || NOT EXISTS { ?x oa:hasBody ?body }
      || NOT EXISTS { ?x oa:hasTarget ?target . ?target oa:hasSource ?source ; weave:atEvent|weave:atLine ?event })`),
  },
  {
    statement: 'claim: rdf:reifies <<( Turn weave:exhibits "…" )>>, unasserted',
    holds: count('?x rdf:reifies ?claim ; prov:wasDerivedFrom ?annotation ; weave:detector ?d ; weave:detectionType ?type'),
    breaks: count('{ ?x weave:exhibits ?what } UNION { ?c rdf:reifies <<( ?x weave:exhibits ?what )>> . ?x weave:exhibits ?what }'),
    tripleTerms: true,
  },
];
