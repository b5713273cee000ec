import { createHash } from 'node:crypto';
import { detectorGraphIri, instanceIri, instancePath } from '../rdf/iri.ts';
import { bool, dateTime, dec, int, iri, isDateTime, nquad, str, tripleTerm, type Term, type Triple } from '../rdf/terms.ts';
import { a, oa, prov, rdf, rdfs, weave, weaveTerm } from '../rdf/vocab.ts';
import { detectionTypeOf, detectorOf, type Fields, type Finding, type Reader, type Value } from './reader.ts';
import { excerpt, redact } from './redact.ts';
import { findSecrets } from './secret/exposure.ts';
import { codePointOffset, codePointsAfter, codePointsBefore } from './text.ts';

/**
 * Findings as triples, exactly as the ontology card draws layers 03 and 04: an oa:Annotation
 * (who found it, when the source event happened, where in which text, what it says) and a
 * claim that reifies `<<( event weave:exhibits "<detector>/<type>" )>>` without asserting it (a
 * finding in a line that is not a record is `weave:atLine` that line, and no turn's claim).
 * Every IRI comes from a hash of the reader, the source and the span, and the time is the
 * source event's, so reading the same spine again writes the same graph byte for byte. Every
 * text taken from the transcript (the quote, its context, the body's strings) is redacted:
 * secrets become `[redacted <kind>, <n> chars]` (redact.ts).
 */

/**
 * How findings are written, for every reader: a reader graph written under another format is
 * stale whatever the reader's own version. 2: claims are typed prov:Entity; quotes and body
 * texts are redacted. 3: a finding's id is the same under every soul (findingId).
 */
export const FINDINGS_FORMAT = 'findings/3';

/** Code points of context kept on each side of a quote: enough to re-anchor after drift. */
const QUOTE_CONTEXT = 32;

function detectorIri(soul: string, reader: Pick<Reader, 'name'>): Term {
  return instanceIri(soul, 'detector', ...reader.name.split('/'));
}

/** The reader as a prov:SoftwareAgent with its version. */
function detectorTriples(soul: string, reader: Reader): Triple[] {
  const agent = detectorIri(soul, reader);
  return [
    { s: agent, p: a, o: prov.SoftwareAgent },
    { s: agent, p: a, o: weave.Detector },
    { s: agent, p: rdfs.label, o: str(reader.name) },
    { s: agent, p: rdfs.comment, o: str(reader.description) },
    { s: agent, p: weave.detectorVersion, o: str(reader.version) },
  ];
}

/**
 * The stable id of a finding: reader, transcript, source event, block, place in the input, span
 * in code points, and the finding's type when it is not the reader's name. The transcript is part of it because record uuids recur across sessions
 * (forks copy them; synthetic transcripts reuse them), and two sessions' findings must not merge.
 * Its IRIs are taken after the soul: a session two machines read into one store is held under
 * each one's soul, and a finding in it is one finding, keyed alike under both (as queries key
 * nodes, instancePathOf).
 */
function findingId(reader: Pick<Reader, 'name'>, finding: Finding): string {
  const { site } = finding;
  const span = [codePointOffset(site.text, finding.start), codePointOffset(site.text, finding.end)];
  const place = (
    site.sourceKind === 'malformed_line'
      ? [site.line.transcript, site.line.iri, '', '']
      : [site.turn.transcript, site.turn.iri, site.block.iri, site.pointer ?? '']
  ).map(soulless);
  return createHash('sha256')
    .update([reader.name, ...place, ...span, ...(finding.type && finding.type !== reader.name ? [finding.type] : [])].join('\n'))
    .digest('hex')
    .slice(0, 32);
}

/** An IRI of Weave's instances without its soul (`<Kind>/<id…>`); any other text as it is. */
function soulless(value: string): string {
  return instancePath(value) ?? value;
}

function findingTriples(soul: string, reader: Reader, finding: Finding, id: string): Triple[] {
  const out: Triple[] = [];
  const t = (s: Term, p: Term, o: Term) => out.push({ s, p, o });
  const { site } = finding;
  const annotation = instanceIri(soul, 'Annotation', id);
  const target = instanceIri(soul, 'Annotation', id, 'target');
  // A turn (and its block), or a line that is not a record, which no turn holds: the card's
  // weave:atEvent and the claim are a turn's, so a finding in such a line is weave:atLine, unclaimed.
  const inLine = site.sourceKind === 'malformed_line';
  const [line, turn, block] = inLine ? [site.line, undefined, undefined] : [undefined, site.turn, site.block];
  const at = inLine ? site.line : site.turn;
  const type = detectionTypeOf(reader, finding);

  t(annotation, a, oa.Annotation);
  t(annotation, prov.wasAttributedTo, detectorIri(soul, reader));
  // Only a real time: a timestamp field holding anything else is transcript text, which readers never copy.
  if (turn?.time && isDateTime(turn.time)) t(annotation, prov.generatedAtTime, dateTime(turn.time));
  t(annotation, weave.eventType, str(type));
  t(annotation, weave.sourceKind, str(site.sourceKind));
  t(annotation, oa.hasTarget, target);
  for (const used of new Set([at.iri, ...(block ? [block.iri] : []), ...(finding.used ?? [])])) t(annotation, prov.used, iri(used));

  t(target, a, oa.SpecificResource);
  t(target, oa.hasSource, iri(at.transcript));
  if (line) t(target, weave.atLine, iri(line.iri));
  if (turn) t(target, weave.atEvent, iri(turn.iri));
  if (block) t(target, weave.atBlock, iri(block.iri));
  // A pointer is made of the input's keys, which are transcript text too.
  if (!inLine && site.pointer !== undefined) t(target, weave.inputPointer, str(redact(site.pointer)));
  const position = instanceIri(soul, 'Annotation', id, 'position');
  t(target, oa.hasSelector, position);
  t(position, a, oa.TextPositionSelector);
  t(position, oa.start, int(codePointOffset(site.text, finding.start)));
  t(position, oa.end, int(codePointOffset(site.text, finding.end)));
  if (finding.quote !== false) {
    const quote = instanceIri(soul, 'Annotation', id, 'quote');
    const { text } = site;
    const secrets = findSecrets(text);
    const before = finding.start - codePointsBefore(text, finding.start, QUOTE_CONTEXT).length;
    const after = finding.end + codePointsAfter(text, finding.end, QUOTE_CONTEXT).length;
    t(target, oa.hasSelector, quote);
    t(quote, a, oa.TextQuoteSelector);
    t(quote, oa.exact, str(excerpt(text, finding.start, finding.end, secrets)));
    t(quote, oa.prefix, str(excerpt(text, before, finding.start, secrets)));
    t(quote, oa.suffix, str(excerpt(text, finding.end, after, secrets)));
  }

  const body = instanceIri(soul, 'Annotation', id, 'body');
  t(annotation, oa.hasBody, body);
  t(body, a, weave.FindingBody);
  fieldTriples(soul, body, ['Annotation', id, 'body'], finding.body, out);

  if (!turn) return out;
  const claim = instanceIri(soul, 'Claim', id);
  t(claim, a, weave.Claim);
  t(claim, a, prov.Entity); // its superclass, stated: the store does no inference
  t(claim, rdf.reifies, tripleTerm({ s: iri(turn.iri), p: weave.exhibits, o: str(type) }));
  t(claim, prov.wasDerivedFrom, annotation);
  t(claim, weave.detector, str(detectorOf(reader)));
  t(claim, weave.detectionType, str(type));
  if (finding.confidence !== undefined) t(claim, weave.confidence, dec(finding.confidence));
  return out;
}

/** A body node's fields as triples (each key a declared weave: term); nested objects become nodes named by their path. */
function fieldTriples(soul: string, node: Term, path: (string | number)[], fields: Fields, out: Triple[]): void {
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (key === '@type') {
      out.push({ s: node, p: a, o: weaveTerm(value as string) });
      continue;
    }
    const values = Array.isArray(value) ? value : [value];
    values.forEach((v, i) => {
      if (isFields(v)) {
        const child = instanceIri(soul, String(path[0]), ...path.slice(1), key, i);
        out.push({ s: node, p: weaveTerm(key), o: child });
        fieldTriples(soul, child, [...path, key, i], v, out);
      } else out.push({ s: node, p: weaveTerm(key), o: literal(v, key) });
    });
  }
}

function isFields(v: Value): v is Fields {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !('decimal' in v && Object.keys(v).length === 1);
}

function literal(v: Value, key: string): Term {
  if (typeof v === 'string') return str(redact(v));
  if (typeof v === 'boolean') return bool(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`a finding's field "${key}" is not a finite number`);
    return Number.isInteger(v) ? int(v) : dec(v);
  }
  if (typeof v === 'object' && v !== null && 'decimal' in v && typeof v.decimal === 'number') return dec(v.decimal);
  throw new Error(`a finding's field "${key}" has a value of an unsupported shape`);
}

/** The most text in one part of a graph's text: a long session's findings are more than one string holds. */
const PART = 1 << 20;

/**
 * One reader's graph for one session: every finding's annotation and claim, in the order the
 * reader found them, made part by part as they are written (a long session's findings are written,
 * never held). Every subject of a finding's triples is named by its id, so only findings of one id
 * can state the same triple: each is stated once.
 */
export function* readerGraphText(soul: string, reader: Reader, findings: readonly Finding[], graph: string): Generator<string> {
  const g = iri(graph);
  const ids = findings.map((f) => findingId(reader, f));
  const counts = new Map<string, number>();
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + 1);
  /** The lines stated so far of each id that more than one finding has. */
  const stated = new Map<string, Set<string>>();
  let part = '';
  for (const [i, f] of findings.entries()) {
    const id = ids[i];
    let lines = stated.get(id);
    if (!lines) {
      lines = new Set();
      if (counts.get(id)! > 1) stated.set(id, lines);
    }
    for (const t of findingTriples(soul, reader, f, id)) {
      const line = nquad(t, g);
      if (lines.has(line)) continue;
      lines.add(line);
      part += line;
    }
    if (part.length < PART) continue;
    yield part;
    part = '';
  }
  if (part) yield part;
}

/** The reader's own graph: the detector as a prov:SoftwareAgent with its version (a few lines, sorted, each once). */
export function detectorGraphText(soul: string, reader: Reader): { text: string; quads: number } {
  const g = iri(detectorGraphIri(soul, reader));
  const lines = [...new Set(detectorTriples(soul, reader).map((t) => nquad(t, g)))].sort();
  return { text: lines.join(''), quads: lines.length };
}
