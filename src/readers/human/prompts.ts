import { DIALECTS } from '../../dialect/index.ts';
import { iri } from '../../rdf/terms.ts';
import type { BlockView, SessionSpine, TurnView } from '../spine.ts';

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
 * - at least one of its text blocks is not written by the runtime (a harness wrapper: by the rule
 *   of the session's dialect, `Dialect.writtenByRuntime`).
 *
 * The prompt's text is the first such block.
 */

interface HumanPrompt {
  turn: TurnView;
  block: BlockView;
  /** Whether the record said `origin.kind: human`, or merely said nothing. */
  originStated: boolean;
}

function humanPrompt(turn: TurnView, writtenByRuntime: (text: string) => boolean): HumanPrompt | undefined {
  if (turn.role !== 'user' || turn.isMeta || turn.isSidechain || turn.isCompactSummary || turn.isVisibleInTranscriptOnly) return undefined;
  if (turn.originKind !== undefined && turn.originKind !== 'human') return undefined;
  if (turn.blocks.some((b) => b.kind === 'tool_result')) return undefined;
  const block = turn.blocks.find((b) => b.kind === 'text' && b.text?.trim() && !writtenByRuntime(b.text));
  if (!block) return undefined;
  return { turn, block, originStated: turn.originKind === 'human' };
}

export function* humanPrompts(spine: SessionSpine): Generator<HumanPrompt> {
  const rule = runtimeRule(spine);
  for (const turn of spine.turns) {
    const prompt = humanPrompt(turn, rule);
    if (prompt) yield prompt;
  }
}

/** Whether a user text was written by a runtime, by the rule of any dialect Weave reads. */
export function isWrapper(text: string): boolean {
  return DIALECTS.some((d) => d.writtenByRuntime?.(text));
}

/** The rule of the dialect that wrote the session, known by its transcripts' class; every dialect's when the spine names none Weave reads. */
function runtimeRule(spine: SessionSpine): (text: string) => boolean {
  const own = DIALECTS.find((d) => spine.transcriptClasses?.some((c) => iri(c) === d.transcriptClass));
  return own ? (text) => own.writtenByRuntime?.(text) === true : isWrapper;
}
