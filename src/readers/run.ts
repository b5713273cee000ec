import type { Input, SessionDerivation } from '../derive/derivation.ts';
import { detectorGraphIri, readerGraphIri } from '../rdf/iri.ts';
import { detectorGraphText, FINDINGS_FORMAT, readerGraphText } from './emit.ts';
import type { Reader } from './reader.ts';
import { SpineBuilder } from './spine-builder.ts';
import type { SessionSpine } from './spine.ts';

/**
 * Each reader is a derivation (src/derive/): it reads one session's spine, made once for all the
 * readers from the session graph's triples, and its findings replace its graph for the session
 * whole. The graph's stamp is the reader's version and the session graph's, so a later run redoes
 * exactly the pairs whose inputs changed.
 */

/** The spine: what readers read of a session graph (spine-builder.ts). */
export const SPINE: Input<SessionSpine> = {
  name: 'spine',
  collect: ({ graph, sessionId }) => {
    const builder = new SpineBuilder();
    return { add: (s, p, o, line) => builder.add(s, p, o, line), done: () => builder.build(graph, sessionId) };
  },
};

export function readerDerivation(reader: Reader): SessionDerivation<SessionSpine> {
  // `<name>@<version> <findings format>`, as reader graphs have always been stamped.
  const version = `${reader.version} ${FINDINGS_FORMAT}`;
  return {
    name: reader.name,
    version,
    description: reader.description,
    reads: SPINE,
    output: (soul, sessionId) => ({ graph: readerGraphIri(soul, sessionId, reader.name) }),
    // Each reader describes itself once, in its own graph, not in every session's.
    begin: async (run) => {
      const graph = detectorGraphIri(run.soul, reader);
      const builtWith = `${reader.name}@${version}`;
      if (run.writer.manifest.graphs[graph]?.builtWith === builtWith) return;
      const { text, quads } = detectorGraphText(run.soul, reader);
      await run.wrote(graph, await run.writer.writeGraph(graph, text, { quads, reader: reader.name, builtWith }));
    },
    derive: async (spine, { sessionId }, run) => {
      const findings = reader.read(spine, { secretKey: await run.secretKey() });
      // Made as it is written; findings the framework cannot write (a foreign type, a bad field) fail the reader too.
      const text = readerGraphText(run.soul, reader, findings, readerGraphIri(run.soul, sessionId, reader.name));
      return { text, reader: reader.name, findings: findings.length };
    },
  };
}
