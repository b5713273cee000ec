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
