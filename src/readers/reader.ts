import type { LineSite, SessionSpine, TextSite } from './spine.ts';

/**
 * The reader interface (layers 03 and 04 of the ontology card). A reader is a named, versioned
 * module that walks one session's stored spine and returns findings as plain values; the
 * framework (`emit.ts`) turns them into an oa:Annotation and an unasserted claim each, so no
 * reader writes RDF.
 */
export interface Reader {
  /** `<detector>/<type>`: the claim says the event exhibits exactly this string. */
  readonly name: string;
  /** Bumped whenever the reader's output for the same spine can change; stale graphs re-run. */
  readonly version: string;
  /** One sentence for the detector's description in the graph. */
  readonly description: string;
  read(spine: SessionSpine, context: ReadContext): Finding[];
}

/** What the framework hands every reader besides the spine. */
export interface ReadContext {
  /** The store's key for digests of secrets (src/readers/secret/key.ts). */
  secretKey: Buffer;
}

/** One thing a reader found in a piece of stored text. */
export interface Finding {
  /** The text the finding sits in: a block's text, one string of a tool input, or a malformed line's raw text. */
  site: TextSite | LineSite;
  /** The span, as UTF-16 indices into `site.text` (the framework counts code points for oa:). */
  start: number;
  end: number;
  /** False when the span must not be copied into the graph (a secret): no TextQuoteSelector. */
  quote?: boolean;
  /** What the finding says. Keys are weave: local names; see `Value` for typing. */
  body: Fields;
  /** Further evidence read besides the site's turn and block (IRIs as N-Triples terms). */
  used?: string[];
  /** How much the reader believes the claim, 0–1, when it can say. */
  confidence?: number;
  /**
   * The detection type, when a reader reports more than one kind of finding (emojikey/harvest
   * also reports emojikey/update); `<detector>/<type>` with the reader's own detector. Default:
   * the reader's name.
   */
  type?: string;
}

/**
 * A body value. Strings stay strings; numbers become xsd:integer when whole and xsd:decimal
 * otherwise (`{ decimal }` forces a decimal); a nested object becomes a node of its own; an
 * array gives the property one value per element.
 */
export type Value = string | number | boolean | Decimal | Fields | Value[];
interface Decimal {
  decimal: number;
}
export interface Fields {
  /** The node's class, a weave: local name. */
  '@type'?: string;
  [key: string]: Value | undefined;
}

/** What a finding's claim says its event exhibits: its own type, else the reader's name. */
export function detectionTypeOf(reader: Pick<Reader, 'name'>, finding: Pick<Finding, 'type'>): string {
  const type = finding.type ?? reader.name;
  if (detectorOf({ name: type }) !== detectorOf(reader) || !/^[^/]+\/[^/]+$/.test(type))
    throw new Error(`reader ${reader.name} reported a finding of type "${type}", which is not ${detectorOf(reader)}/<type>`);
  return type;
}

/** The detector part of a reader's name (`emojikey` of `emojikey/harvest`). */
export function detectorOf(reader: Pick<Reader, 'name'>): string {
  return reader.name.split('/')[0];
}
