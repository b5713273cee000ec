/**
 * SPARQL 1.1 JSON results as the Recommendation has them: Virtuoso still writes the 2008 draft's
 * `typed-literal` for a literal with a datatype, which clients of 1.1 (and our table) do not know.
 * Its own module (no Oxigraph) so the light entry reads an external store's answers the same way.
 */
export function standardJson(body: Uint8Array): Uint8Array {
  const text = new TextDecoder().decode(body);
  if (!text.includes('"typed-literal"')) return body;
  const json = JSON.parse(text) as { results?: { bindings: Record<string, { type: string }>[] } };
  for (const row of json.results?.bindings ?? [])
    for (const term of Object.values(row)) if (term.type === 'typed-literal') term.type = 'literal';
  return new TextEncoder().encode(JSON.stringify(json));
}

/** The rows of SPARQL 1.1 JSON results, each variable bound to its value as text (a triple term's left out). */
export function rowsOf(json: string): Record<string, string>[] {
  const parsed = JSON.parse(json) as { results?: { bindings: Record<string, { type: string; value: unknown }>[] } };
  return (parsed.results?.bindings ?? []).map((b) =>
    Object.fromEntries(Object.entries(b).flatMap(([k, v]) => (v.type === 'triple' ? [] : [[k, String(v.value)]]))),
  );
}

/**
 * The rows an answer was cut at, as the store says in a header: Virtuoso cuts a SELECT's answer at
 * its `ResultSetMaxRows` (10,000 in a stock virtuoso.ini) without a word in the body, and says
 * `X-SPARQL-MaxRows: N` beside it (also when the answer has exactly N rows). Undefined for a
 * store that said nothing.
 */
export function cutAt(header: string | string[] | null | undefined): number | undefined {
  const rows = Number.parseInt(String(Array.isArray(header) ? header[0] : (header ?? '')), 10);
  return Number.isSafeInteger(rows) && rows > 0 ? rows : undefined;
}

/** Virtuoso's header that names the rows it cut an answer at. */
export const CUT_HEADER = 'x-sparql-maxrows';

/** The words every refusal of a cut answer holds (cutAnswer, graphCut), which isCut looks for. */
const STORE = 'the external store';
const CUT = 'cut its answer';

/** What an answer cut at `rows` is, and the way on. */
export function cutAnswer(rows: number): string {
  return `${STORE} ${CUT} at ${rows.toLocaleString('en')} rows, the most it answers one query with (Virtuoso's ResultSetMaxRows, in the [SPARQL] section of its virtuoso.ini; a stock virtuoso.ini says 10,000): raise it and restart the store, or ask in pages of fewer rows (ORDER BY with LIMIT and OFFSET, as far as Virtuoso sorts: its MaxSortedTopRows, 10,000 by default)`;
}

/** What a graph sent short by a Graph Store GET is (RemoteStore.getGraph), and the way on. */
export function graphCut(sent: number, held: number): string {
  return `${STORE} sent ${sent.toLocaleString('en')} of the graph's ${held.toLocaleString('en')} triples: it ${CUT} without a word (Virtuoso cuts a Graph Store GET at its ResultSetMaxRows, in the [SPARQL] section of its virtuoso.ini; a stock virtuoso.ini says 10,000): raise it and restart the store, or ask for the graph's triples by a query, in pages of fewer rows`;
}

/** Whether `message` (a server's 507, say) tells of an answer the external store cut (cutAnswer, graphCut). */
export function isCut(message: string): boolean {
  return message.includes(STORE) && message.includes(CUT);
}

const CUTS_NOTE = 'the external store cuts every answer at';

/** What a user is told of a store that cuts every answer at `rows` (RemoteStore.cutsAnswersAt), before one of theirs is refused. */
export function cutsNote(rows: number): string {
  return `${CUTS_NOTE} ${rows.toLocaleString('en')} rows (Virtuoso's ResultSetMaxRows, in the [SPARQL] section of its virtuoso.ini): a longer answer is refused, a conversation, a report or a page as a query; raise it and restart the store`;
}

/** Whether `note` is cutsNote's. */
export function isCutsNote(note: string): boolean {
  return note.startsWith(CUTS_NOTE);
}
