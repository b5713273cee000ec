import type { Finding, Reader } from '../reader.ts';
import type { SessionSpine, TurnView } from '../spine.ts';
import { humanPrompts } from '../human/prompts.ts';

/**
 * agent/correction: a person's prompt that rejects or corrects the answer before it. Read by
 * simple cues at the very start of the prompt (people lead with the objection); a cue anywhere
 * later is too often quoted or hypothetical. The cues, each with the belief it carries:
 *
 * | cue             | the prompt opens with                                              | confidence |
 * |-----------------|--------------------------------------------------------------------|------------|
 * | wrong           | "wrong", "incorrect", "that's wrong", "that is not what I asked"   | 0.85       |
 * | you-failed      | "you didn't", "you forgot", "you missed", "you broke", "you ignored" | 0.8      |
 * | repeat          | "I said", "I told you", "I asked you to", "I meant"                | 0.8        |
 * | undo            | "stop", "undo", "revert", "roll back", "don't do that"             | 0.75       |
 * | still-failing   | "still not …", "it still fails", "it doesn't work", "still broken" | 0.7        |
 * | negation        | "no," / "no." / "nope" / "no, that …", a bare no and a pause       | 0.7        |
 * | why-did-you     | "why did you", "why would you"                                     | 0.6        |
 *
 * The prompt must follow an assistant turn (found through the reply chain): the first prompt
 * of a session corrects nothing. A bare "no" that follows an answer ending in a question mark
 * answers that question and is not taken for a correction.
 */
const CUES: [cue: string, pattern: RegExp, confidence: number][] = [
  [
    'wrong',
    /^(?:wrong|incorrect)\b|^(?:that'?s|that is|this is|it'?s|it is|you'?re|you are)\s+(?:(?:just\s+|all\s+)?wrong|incorrect|not (?:right|correct|what i (?:asked|wanted|meant|said)))\b/i,
    0.85,
  ],
  ['you-failed', /^you\s+(?:didn'?t|did not|forgot|missed|broke|ignored|misunderstood|got (?:it|that) wrong)\b/i, 0.8],
  ['repeat', /^i\s+(?:said|told you|asked (?:you\s+)?(?:to|for)|meant)\b/i, 0.8],
  ['undo', /^(?:stop|undo|revert|roll ?back|don'?t do that|do not do that)\b/i, 0.75],
  [
    'still-failing',
    /^(?:(?:it|this|that)(?:'s| is)?\s+)?still\s+(?:not|broken|failing|fails|wrong|doesn'?t|does not|the same)\b|^(?:it|this|that)\s+(?:still\s+)?(?:doesn'?t|does not|didn'?t|did not)\s+work\b/i,
    0.7,
  ],
  ['negation', /^(?:no|nope|nah)(?:[,.!;:]|\s+[—–-]|\s+(?:that|this|it|you|not|wait|stop)\b)/i, 0.7],
  ['why-did-you', /^why (?:did|would) you\b/i, 0.6],
];

export const agentCorrection: Reader = {
  name: 'agent/correction',
  version: '1',
  description: "Marks a person's prompt that rejects or corrects the previous answer, by documented opening cues.",
  read(spine: SessionSpine): Finding[] {
    const findings: Finding[] = [];
    for (const { turn, block } of humanPrompts(spine)) {
      const text = block.text!;
      const lead = text.length - text.trimStart().length;
      const opening = text.slice(lead);
      const hit = CUES.map(([cue, pattern, confidence]) => ({ cue, confidence, m: pattern.exec(opening) })).find((c) => c.m);
      if (!hit) continue;
      const answer = previousAnswer(spine, turn);
      if (!answer) continue;
      if (hit.cue === 'negation' && endsWithQuestion(answer)) continue;
      findings.push({
        site: { turn, block, text, sourceKind: 'authored' },
        start: lead,
        end: lead + hit.m![0].length,
        body: { cue: hit.cue, cueText: hit.m![0] },
        used: [answer.iri],
        confidence: hit.confidence,
      });
    }
    return findings;
  },
};

/** The nearest assistant turn up the reply chain. */
function previousAnswer(spine: SessionSpine, turn: TurnView): TurnView | undefined {
  const seen = new Set<string>();
  for (let event = spine.parentOf(turn.iri); event && !seen.has(event); event = spine.parentOf(event)) {
    seen.add(event);
    const parent = spine.turn(event);
    if (parent?.role === 'assistant') return parent;
  }
  return undefined;
}

/** Whether the answer's last text block ends by asking something. */
function endsWithQuestion(answer: TurnView): boolean {
  const texts = answer.blocks.filter((b) => b.kind === 'text' && b.text?.trim());
  return /\?\s*$/.test(texts.at(-1)?.text ?? '');
}
