import type { JsonTerm } from '../query/table.ts';

/**
 * A SELECT the server itself runs, as rows of SPARQL JSON terms: on a query worker's copy of the
 * store (workers/operations/rows.ts) or on an external store (remote-backend.ts). What the describe
 * page and VoID read is written once against it (description.ts, dataset-stats.ts). `union`: the
 * union of graphs is the default graph (else the store's own default graph).
 */
export type Select = (query: string, union?: boolean) => Promise<Record<string, JsonTerm>[]>;

export const num = (t: JsonTerm | undefined) => Number(t?.value ?? 0);
export const str = (t: JsonTerm | undefined) => String(t?.value ?? '');
