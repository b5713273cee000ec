import { instanceIri } from '../rdf/iri.ts';
import { str, type Term } from '../rdf/terms.ts';
import { a, dcterms, weave } from '../rdf/vocab.ts';
import type { ModelContext } from './context.ts';
import { emitSegments, findSegments } from './segments.ts';
import { sessionNode } from './streams.ts';
import type { Talk } from './talks.ts';

/**
 * The conversation: the unit a session's records are owned and exported as. Its identity is
 * supplied, never inferred, and Claude Code supplies the session id, so each session is one
 * conversation (exact, by the stated default), cut into segments. A session that goes on from a
 * record it does not hold (its first record's parent, or a compaction's tail, is in an earlier
 * session file: a resume) says where it continues from; that record is in another session's
 * graph, so the link is left as a CrossSessionReference for the pass across sessions to state.
 */

function conversationNode(soul: string, sessionId: string): Term {
  return instanceIri(soul, 'Conversation', sessionId);
}

export function emitConversation(ctx: ModelContext, talks: Talk[]): void {
  const { d, facts, byUuid } = ctx;
  const conversation = conversationNode(d.soul, d.sessionId);
  d.typed(conversation, 'Conversation');
  d.add(conversation, dcterms.identifier, str(d.sessionId));
  d.link(sessionNode(d.soul, d.sessionId), weave.inConversation, conversation, 'exact_unique');
  emitSegments(ctx, findSegments(ctx), conversation, talks);

  // The main stream's first link back: when it names a record this session does not hold, the
  // conversation goes on from another session's.
  const main = ctx.streams.find((s) => s.main)?.index;
  const first = facts.find((f) => f.stream === main && (f.parent ?? f.logicalParent) !== undefined);
  const back = first && (first.parent ?? first.logicalParent)!;
  if (back === undefined || byUuid.has(back)) return;
  const reference = instanceIri(d.soul, 'CrossSessionReference', d.sessionId, 'continuesFrom');
  d.add(reference, a, weave.CrossSessionReference);
  d.add(reference, weave.referenceFrom, conversation);
  d.add(reference, weave.referenceProperty, weave.continuesFrom);
  d.add(reference, weave.referenceTargetId, str(back));
}
