import { isWrapper } from '../../dialect/claude-code/prompt.ts';
import type { BlockView, SessionSpine, TurnView } from '../spine.ts';

export { isWrapper };

/**
 * Which user turns a person really typed. Most records in the user role are not prompts: tool
 * results, injected reminders, slash-command echoes, shell-mode transcripts, task and channel
 * notifications, compaction summaries, sub-agent prompts written by the parent agent. A turn is
 * a human prompt when all of these hold:
 *
 * - it is a user turn of the main stream (not a sidechain), not `isMeta`, not a compaction
 *   summary, not visible-in-transcript-only;
 * - its origin, when recorded, is `human` (older Claude Code versions record none);
 * - it holds no tool result;
 * - at least one of its text blocks is not a harness wrapper (see `isWrapper`, in the dialect).
 *
 * The prompt's text is the first such block.
 */

export interface HumanPrompt {
  turn: TurnView;
  block: BlockView;
  /** Whether the record said `origin.kind: human`, or merely said nothing. */
  originStated: boolean;
}

export function humanPrompt(turn: TurnView): HumanPrompt | undefined {
  if (turn.role !== 'user' || turn.isMeta || turn.isSidechain || turn.isCompactSummary || turn.isVisibleInTranscriptOnly) return undefined;
  if (turn.originKind !== undefined && turn.originKind !== 'human') return undefined;
  if (turn.blocks.some((b) => b.kind === 'tool_result')) return undefined;
  const block = turn.blocks.find((b) => b.kind === 'text' && b.text?.trim() && !isWrapper(b.text));
  if (!block) return undefined;
  return { turn, block, originStated: turn.originKind === 'human' };
}

export function* humanPrompts(spine: SessionSpine): Generator<HumanPrompt> {
  for (const turn of spine.turns) {
    const prompt = humanPrompt(turn);
    if (prompt) yield prompt;
  }
}
