import type { Term, Triple } from '../rdf/terms.ts';
import type { ContentPolicy } from './content.ts';
import type { TranscriptDefaults } from './defaults.ts';

/**
 * What the session emitter and a dialect's record emitter say to each other, whatever the
 * runtime: where a record sits, the triples it comes to, and the links that wait for the whole
 * session. A leaf: it imports nothing but types of the RDF core and the content policy.
 */

/** Where a record sits, and what the session knows while its triples are written. */
export interface Where {
  soul: string;
  transcript: Term;
  lineNo: number;
  offset: number;
  /** The session the record is read into (scopes ids unique only per session); default: the record's. */
  session?: string;
  /** How much of each text to store; default DEFAULT_POLICY. */
  content?: ContentPolicy;
  /** Shared nodes the session has described already (kept by the session across its records). */
  described?: Set<Term>;
  /** What the transcript states once for its records (kept by the session per transcript). */
  defaults?: TranscriptDefaults;
}

/** A link whose target is known only by an id until the whole session is read. */
export interface Reference {
  subject: Term;
  predicate: Term;
  /** Which id space the target lives in. */
  space: 'event' | 'toolUse';
  id: string;
  /**
   * Where the link does not resolve in the session, the id is stated as this literal property
   * instead (weave:parentEventId, …), so it can still be followed into other sessions; where it
   * resolves, the target states it (weave:eventId, weave:toolUseId).
   */
  literal?: Term;
}

/** Finds the node a session's records gave an id, once all of them are read. */
export type Resolve = (space: Reference['space'], id: string) => Term | undefined;

/** One record as triples. */
export interface RecordOut {
  triples: Triple[];
  references: Reference[];
  /** The record's Event (every record is one). */
  event: Term;
  /** Tool uses this record declares, by id, with their block IRI. */
  toolUses: [string, Term][];
}

export interface SessionCounts {
  records: number;
  malformed: number;
  pending: number;
  replayed: number;
  triples: number;
}
