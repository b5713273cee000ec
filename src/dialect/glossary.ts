/**
 * A glossary: what one runtime calls each term of the conversation model, and where it writes
 * it. Each dialect keeps its own beside its reader (when the runtime renames a field, the table
 * and the extraction change in the same place); `weave glossary` and the ontology's native terms
 * (src/model/ontology.ts) read them all from the dialect list.
 */

export interface GlossaryEntry {
  /** The model's term (src/model/vocabulary.ts). */
  model: string;
  /** The runtime's name for it; absent when the project derives it. */
  runtime?: string;
  /** Where in the runtime's records the runtime name appears. */
  where?: string;
  note?: string;
  /** Whether this project reads it from the records (or, for a derived term, emits it). */
  read: boolean;
}

export interface Glossary {
  dialect: string;
  /** The runtime, as people name it (`Claude Code`). */
  label: string;
  terms: GlossaryEntry[];
  /** What the runtime records that the model does not carry, and why. */
  notCarried: { field: string; why: string }[];
  /** What the model would want that the runtime does not write at all. */
  notSupplied: { what: string; why: string }[];
}

/** The glossaries of `dialects`, by dialect id, in list order. */
export function glossaries(dialects: readonly { glossary: Glossary }[]): Record<string, Glossary> {
  return Object.fromEntries(dialects.map((d) => [d.glossary.dialect, d.glossary]));
}

/** The runtime's word for a model term, or the term itself when it has none. */
export function nativeName(glossary: Glossary | undefined, model: string): string {
  return glossary?.terms.find((t) => t.model === model)?.runtime ?? model;
}
