import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Glossary } from '../dialect/glossary.ts';
import { DIALECTS } from '../dialect/index.ts';
import { MODEL_TERMS, ONTOLOGY_TERMS, type OntologyTerm } from './vocabulary.ts';

/**
 * Renders `ontology/parts/model.ttl` from the model's vocabulary and every dialect's glossary, so the
 * ontology and the glossary cannot drift apart: each model class, property and individual gets
 * its definition, `skos:notation` with the model's term, and per dialect a `weave:nativeTerm`
 * saying what that runtime calls it. Run this file to write it; a test checks it is current.
 */

export const MODEL_TTL = new URL('../../ontology/parts/model.ttl', import.meta.url);

const HEADER = `@prefix weave: <https://repolex.ai/ontology/weave#> .
@prefix rdf:   <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs:  <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl:   <http://www.w3.org/2002/07/owl#> .
@prefix xsd:   <http://www.w3.org/2001/XMLSchema#> .
@prefix skos:  <http://www.w3.org/2004/02/skos/core#> .

# The conversation model: session → stream → epoch → talk → run → step, the relations across
# streams, the evidence level of every derived link, and what each runtime calls each term.
# Written by src/model/ontology.ts from src/model/vocabulary.ts and the dialect glossaries
# (src/dialect/*/glossary.ts); do not edit by hand. Ask, for instance:
#   SELECT ?name WHERE { ?t skos:notation "llm.call" ; weave:nativeTerm/weave:runtimeName ?name }
`;

const FORM: Record<OntologyTerm['form'], string> = {
  class: 'owl:Class',
  object: 'owl:ObjectProperty',
  datatype: 'owl:DatatypeProperty',
  individual: 'owl:NamedIndividual',
};

const quote = (text: string) => JSON.stringify(text);
/** `xsd:string` stays prefixed; a bare local name is in the weave namespace. */
const ref = (name: string) => (name.includes(':') ? name : `weave:${name}`);
/** One class, or the union of several. */
const classes = (c: string | string[]) => (typeof c === 'string' ? ref(c) : `[ owl:unionOf ( ${c.map(ref).join(' ')} ) ]`);

export function renderModelOntology(glossaries: Glossary[] = DIALECTS.map((d) => d.glossary)): string {
  const termOf = new Map<string, string>();
  for (const t of MODEL_TERMS) termOf.set(t.iris[0], t.term);
  const blocks = ONTOLOGY_TERMS.map((o) => {
    const lines: string[] = [];
    if (o.declared === 'model') {
      lines.push(`a ${[o.form === 'individual' ? ref(o.types![0]) : undefined, FORM[o.form]].filter(Boolean).join(', ')}`);
      if (o.form === 'class') for (const sup of o.types ?? []) lines.push(`rdfs:subClassOf ${ref(sup)}`);
      lines.push(`rdfs:label ${quote(o.label)}`, `rdfs:comment ${quote(o.comment)}`);
      if (o.domain) lines.push(`rdfs:domain ${classes(o.domain)}`);
      if (o.range) lines.push(`rdfs:range ${classes(o.range)}`);
    }
    const term = termOf.get(o.name);
    if (term !== undefined) {
      lines.push(`skos:notation ${quote(term)}`);
      for (const g of glossaries) {
        const entry = g.terms.find((t) => t.model === term);
        if (!entry) continue;
        const mapping = ['a weave:DialectMapping', `weave:dialect ${quote(g.dialect)}`];
        if (entry.runtime !== undefined) mapping.push(`weave:runtimeName ${quote(entry.runtime)}`);
        if (entry.where !== undefined) mapping.push(`weave:runtimeWhere ${quote(entry.where)}`);
        if (entry.note !== undefined) mapping.push(`weave:dialectNote ${quote(entry.note)}`);
        mapping.push(`weave:readByDialect ${entry.read}`);
        lines.push(`weave:nativeTerm [ ${mapping.join(' ; ')} ]`);
      }
    }
    return lines.length ? `weave:${o.name}\n    ${lines.join(' ;\n    ')} .\n` : '';
  });
  return `${HEADER}\n${blocks.filter(Boolean).join('\n')}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(MODEL_TTL, renderModelOntology());
  process.stdout.write(`wrote ${fileURLToPath(MODEL_TTL)}\n`);
}
