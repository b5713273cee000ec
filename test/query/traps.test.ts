import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTrap, trapMessage } from '../../src/query/traps.ts';

// A real WebAssembly trap: a module whose one function is `unreachable`, the instruction Rust's
// abort (Oxigraph out of memory) compiles to.
const UNREACHABLE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x60, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07, 0x05, 0x01, 0x01, 0x66,
  0x00, 0x00, 0x0a, 0x05, 0x01, 0x03, 0x00, 0x00, 0x0b,
]);

// Node has WebAssembly; this project's type libraries (no DOM) do not declare it.
const { WebAssembly: wasm } = globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => object; Instance: new (module: object) => { exports: { f: () => void } } };
};

function trap(): unknown {
  const { f } = new wasm.Instance(new wasm.Module(UNREACHABLE)).exports;
  try {
    f();
  } catch (e) {
    return e;
  }
  throw new Error('no trap');
}

test('a WebAssembly trap is told as the query that caused it and the way on, not as an internal error', () => {
  const e = trap();
  assert.ok(isTrap(e));
  assert.ok(!isTrap(new Error('Parse error')));
  const query = `SELECT * WHERE {\n  ?a ?b ?c .\n  ?d ?e ?f .\n  ?g ?h ?i . ${'?x '.repeat(40)}}`;
  const message = trapMessage(query, e, 'The server is still up and opens a fresh copy of the store.');
  assert.equal(
    message,
    `the query "SELECT * WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ${'?x '.repeat(23)}…" stopped the store inside ` +
      'WebAssembly (unreachable): it needs more memory than one embedded store has at this size. Narrow it (a LIMIT, ' +
      'one named graph, fewer joins, a subquery that aggregates first), or move the store to an external SPARQL store ' +
      '(docs/guide.md, "An external store"). The server is still up and opens a fresh copy of the store.',
  );
  assert.match(trapMessage(undefined, e), /^the request stopped the store inside WebAssembly \(unreachable\).*"An external store"\)\.$/);
});
