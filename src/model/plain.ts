import { MODEL_TERMS, ONTOLOGY_TERMS } from './vocabulary.ts';
import { own } from '../own.ts';

/**
 * The model's terms in plain words, for whoever has not read the glossary: the pages and
 * `weave conversation` put these beside (or instead of) `talk`, `run`, `llm.call`,
 * `strong_inference`…, with the term's definition (the ontology's, src/model/vocabulary.ts) on
 * hover and `weave glossary` (the /glossary page) for the rest. One table, so the page and the
 * command say the same thing.
 */

const PLAIN: Record<string, string> = {
  // Structure
  conversation: 'conversation',
  segment: 'activity window',
  session: 'session',
  stream: 'thread',
  epoch: 'context between compactions',
  talk: 'exchange',
  run: "one prompt's work",
  step: 'step',
  // Steps
  'message.external': 'prompt',
  'message.assistant': "model's reply",
  'message.synthetic': 'reply the client wrote',
  'context.injection': 'injected context',
  'llm.call': 'API call',
  thinking: 'thinking',
  tool: 'tool call',
  'agent.call': 'sub-agent call',
  'agent.launch_ack': 'sub-agent launched',
  'agent.output': "sub-agent's answer",
  'runtime.notification': 'notification',
  'epoch.boundary': 'compaction',
  'epoch.summary': 'compaction summary',
  'error.api': 'API error',
  'control.interrupt': 'interruption',
  'control.permission': 'permission decision',
  'control.command': 'slash command',
  'control.notice': 'runtime notice',
  'turn.duration': 'turn time',
  // Evidence: how well a link is founded.
  exact_unique: 'exact',
  exact_ambiguous: 'exact, but not the only match',
  strong_inference: 'inferred',
  weak_inference: 'guessed',
  unresolved: 'not found',
  conflict: 'sources disagree',
  // Triggers: what started a run.
  external: 'from outside',
  notification: 'by a notification',
  unknown: 'by nothing the records state',
  // A segment's states.
  open: 'still open',
  candidate: 'closed, could be committed',
};

/** A term's plain name, or undefined where the term is plain already or not the model's. */
export function plainName(term: string): string | undefined {
  const plain = own(PLAIN, term);
  return plain === term ? undefined : plain;
}

const DEFINITIONS = new Map(ONTOLOGY_TERMS.map((t) => [t.name, t.comment]));

/** What a model term means, in the ontology's words (its main IRI's comment), for a hover. */
export function definition(term: string): string | undefined {
  const found = MODEL_TERMS.find((t) => t.term === term);
  if (found) return DEFINITIONS.get(found.iris[0]) || undefined;
  if (term === 'open' || term === 'candidate') return DEFINITIONS.get('segmentState') || undefined;
  return undefined;
}

/** The glossary's row that tells a term: a segment's state (`open`, `candidate`) is told in the segment's. */
export function glossaryEntry(term: string): string {
  return term === 'open' || term === 'candidate' ? 'segment' : term;
}

/** The model term a class of the weave namespace carries (`LlmCall` → `llm.call`), if any. */
export function termOfClass(local: string): string | undefined {
  return MODEL_TERMS.find((t) => t.iris[0] === local)?.term;
}

/** `talk (exchange)`: the term with its plain name beside it, where it has one. */
export function withPlainName(term: string, shown = term): string {
  const plain = plainName(term);
  return plain ? `${shown} (${plain})` : shown;
}
