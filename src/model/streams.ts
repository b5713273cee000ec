import { basename, extname } from 'node:path';
import { transcriptsOf, type FoundSession, type TranscriptSource } from '../dialect/dialect.ts';
import { instanceIri } from '../rdf/iri.ts';
import { str, type Term } from '../rdf/terms.ts';
import { dcterms, weave } from '../rdf/vocab.ts';
import type { Derivation } from './evidence.ts';

/** One file of the session seen as a stream: the session file is `main`, each agent file a child. */
export interface StreamInfo {
  index: number;
  source: TranscriptSource;
  main: boolean;
  /** `main`, or the child agent's id (the file name where it has none). */
  name: string;
  node: Term;
  /** The Transcript node the spine wrote for the file (set when the emitter begins the file). */
  transcript?: Term;
  /** A compaction summariser (its dialect says so): no call starts it; it produces a compaction's summary. */
  summariser: boolean;
  /** The sidecar's tool use id: the call that started this child, when the runtime wrote one. */
  metaToolUseId?: string;
}

export function sessionNode(soul: string, sessionId: string): Term {
  return instanceIri(soul, 'Session', sessionId);
}

export function streamsOf(soul: string, session: FoundSession): StreamInfo[] {
  const { sessionId } = session;
  return transcriptsOf(session).map((source, index) => {
    const main = source === session.main;
    const name = main ? 'main' : (source.agentId ?? basename(source.path, extname(source.path)));
    const summariser = !main && source.role === 'summariser';
    return { index, source, main, name, summariser, node: instanceIri(soul, 'Stream', sessionId, name) };
  });
}

export function emitStreams(d: Derivation, streams: StreamInfo[]): void {
  const session = sessionNode(d.soul, d.sessionId);
  d.typed(session, 'Session');
  d.add(session, dcterms.identifier, str(d.sessionId));
  for (const s of streams) {
    d.typed(s.node, 'Stream');
    d.add(s.node, weave.streamName, str(s.name));
    d.add(s.node, weave.streamRole, str(s.main ? 'main' : 'child'));
    d.link(s.node, weave.within, session, 'exact_unique');
    if (s.transcript) d.link(s.node, weave.recordedIn, s.transcript, 'exact_unique');
  }
}
