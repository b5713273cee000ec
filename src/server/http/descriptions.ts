import { instancePrefix } from '../../rdf/iri.ts';
import { int, iri, str } from '../../rdf/terms.ts';
import { PREFIXES, WEAVE_NS } from '../../rdf/vocab.ts';
import type { DatasetStats } from '../messages.ts';

/**
 * The endpoint describing itself: a SPARQL 1.1 Service Description (on a bare GET of the
 * endpoint) and a VoID description of the dataset, both written as Turtle here and converted to
 * whatever RDF syntax the client asked for.
 */

const SD = 'http://www.w3.org/ns/sparql-service-description#';
const VOID = 'http://rdfs.org/ns/void#';
const FORMATS = 'http://www.w3.org/ns/formats/';

const HEADER = `@prefix sd: <${SD}> .
@prefix void: <${VOID}> .
@prefix formats: <${FORMATS}> .
@prefix dcterms: <${PREFIXES.dcterms}> .
@prefix rdfs: <${PREFIXES.rdfs}> .
`;

const RESULT_FORMATS = [
  'SPARQL_Results_JSON',
  'SPARQL_Results_XML',
  'SPARQL_Results_CSV',
  'SPARQL_Results_TSV',
  'Turtle',
  'N-Triples',
  'N-Quads',
  'TriG',
  'JSON-LD',
  'RDF_XML',
];
const INPUT_FORMATS = ['Turtle', 'N-Triples', 'RDF_XML', 'JSON-LD'];

interface ServiceFacts {
  endpoint: string;
  voidUrl: string;
  allowUpdate: boolean;
  /** Federated queries are on (an allow-list of endpoints): SERVICE is then supported. */
  federated?: boolean;
  /** Absent while no worker has loaded the store yet. */
  stats?: DatasetStats;
}

export function serviceDescription(facts: ServiceFacts): string {
  const languages = ['sd:SPARQL11Query', ...(facts.allowUpdate ? ['sd:SPARQL11Update'] : [])];
  const lines = [
    HEADER,
    `[] a sd:Service ;`,
    `  sd:endpoint ${iri(facts.endpoint)} ;`,
    `  sd:supportedLanguage ${languages.join(', ')} ;`,
    `  sd:resultFormat ${RESULT_FORMATS.map((f) => `formats:${f}`).join(', ')} ;`,
    ...(facts.allowUpdate ? [`  sd:inputFormat ${INPUT_FORMATS.map((f) => `formats:${f}`).join(', ')} ;`] : []),
    `  sd:feature sd:UnionDefaultGraph${facts.federated ? ', sd:BasicFederatedQuery' : ''} ;`,
    `  sd:defaultEntailmentRegime <http://www.w3.org/ns/entailment/Simple> ;`,
    `  sd:defaultDataset _:dataset .`,
    '',
    `_:dataset a sd:Dataset ;`,
    `  rdfs:seeAlso ${iri(facts.voidUrl)} ;`,
    `  sd:defaultGraph _:default${facts.stats?.graphs.length ? ' ;' : ' .'}`,
  ];
  const graphs = facts.stats?.graphs ?? [];
  lines.push(...graphs.map((_, i) => `  sd:namedGraph _:g${i}${i === graphs.length - 1 ? ' .' : ' ;'}`));
  lines.push(
    '',
    `_:default a sd:Graph ;`,
    `  dcterms:description ${str('The union of all named graphs, unless a request names its own dataset.')}${facts.stats ? ' ;' : ' .'}`,
  );
  if (facts.stats) lines.push(`  void:triples ${int(facts.stats.quads)} .`);
  lines.push(
    ...graphs.map(
      (g, i) => `_:g${i} a sd:NamedGraph ; sd:name ${iri(g.name)} ; sd:graph [ a sd:Graph ; void:triples ${int(g.triples)} ] .`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

interface VoidFacts {
  voidUrl: string;
  endpoint: string;
  soul: string;
  stats: DatasetStats;
}

export function voidDescription(facts: VoidFacts): string {
  const { stats } = facts;
  const dataset = iri(`${facts.voidUrl}#dataset`);
  const lines = [
    HEADER,
    `${dataset} a void:Dataset ;`,
    `  dcterms:title ${str('Weave: Claude Code session transcripts')} ;`,
    `  dcterms:description ${str(`${stats.sessions} sessions in ${stats.graphs.length} named graphs; ${stats.quads} triples.`)} ;`,
    `  void:sparqlEndpoint ${iri(facts.endpoint)} ;`,
    `  void:uriSpace ${str(instancePrefix(facts.soul))} ;`,
    `  void:vocabulary ${iri(WEAVE_NS)} ;`,
    `  void:triples ${int(stats.quads)} ;`,
    // One document per session: the transcript files the graphs were read from.
    `  void:documents ${int(stats.sessions)} ;`,
    `  void:classes ${int(stats.classes.length)} ;`,
    `  void:properties ${int(stats.properties.length)} ;`,
    ...['Turtle', 'N-Triples', 'N-Quads', 'TriG', 'JSON-LD', 'RDF_XML'].map((f) => `  void:feature formats:${f} ;`),
    ...stats.graphs.map((g) => `  void:subset ${iri(g.name)} ;`),
    ...stats.classes.map((c) => `  void:classPartition [ void:class ${iri(c.iri)} ; void:entities ${int(c.entities)} ] ;`),
    ...stats.properties.map((p) => `  void:propertyPartition [ void:property ${iri(p.iri)} ; void:triples ${int(p.triples)} ] ;`),
    `  dcterms:publisher ${str('weave serve')} .`,
    '',
    ...stats.graphs.map(
      (g) => `${iri(g.name)} a void:Dataset ; void:triples ${int(g.triples)} ; void:sparqlEndpoint ${iri(facts.endpoint)} .`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
