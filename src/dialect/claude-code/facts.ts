import { idPath } from './ids.ts';
import type { TranscriptSource } from '../dialect.ts';
import type { Term } from '../../rdf/terms.ts';
import { instanceKey, instancePath } from '../../rdf/iri.ts';
import { fitted } from '../../lists.ts';
import type { RecordFact, RecordFacts, ToolOutcome } from '../../model/facts.ts';
import type {
  AssistantRecord,
  AttachmentRecord,
  ContentBlock,
  Json,
  JsonObject,
  ProgressRecord,
  ReadRecord,
  SystemRecord,
  UserRecord,
} from './records.ts';
import { messageText, summaryBody } from './summary.ts';

/**
 * What the model is handed of each Claude Code record (src/model/facts.ts): ids, links and a
 * classification read from the record's fields, and where no field says it, from the marks
 * Claude Code puts in its text (`<task-notification>`, `<command-name>`, an interruption).
 */

const INTERRUPTED = '[Request interrupted by user';
const NOTIFICATION = '<task-notification>';
const REJECTED = /^(User rejected tool use|The user doesn't want to (proceed|take this action))/;
const COMMAND = /^<(command-name|bash-input)>/;
const COMMAND_OUTPUT = /^<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>/;

/** What each origin.kind Claude Code writes means to the model; any other kind is `unknown`. */
const TRIGGERS = new Map<string, RecordFact['origin']>([
  ['human', 'external'],
  ['task-notification', 'notification'],
]);

/**
 * One record as the model's facts: the fact, and the texts the model compares and drops (a
 * compaction summary's text; in a summariser stream, the `<summary>` body of each response).
 */
export function recordFacts(
  read: ReadRecord,
  at: { source: TranscriptSource; stream: number; line: number; event: Term; session: string },
): RecordFacts {
  const fact = recordFact(read, at.stream, at.line, at.event);
  // The spine's block IRIs: a hand-written uuid is scoped by its session (ids.ts). A path of the
  // block key alone is the default, and not kept: a long session has a fact per record.
  if (read.record.uuid) {
    const path = idPath(read.record.uuid, at.session);
    if (path.length !== 1 || path[0] !== fact.blockKey) fact.blockPath = path;
  }
  const facts: RecordFacts = { fact };
  const { record } = read;
  if (fact.step === 'epoch.summary') facts.summaryText = messageText((record as UserRecord).message?.content);
  if (at.source.role === 'summariser' && record.type === 'assistant') {
    const body = summaryBody(messageText((record as AssistantRecord).message?.content));
    if (body) facts.summaryBody = body;
  }
  return facts;
}

export function recordFact(read: ReadRecord, stream: number, line: number, event: Term): RecordFact {
  const { record } = read;
  const key = instancePath(event.slice(1, -1)) ? instanceKey(event) : `L${line}`;
  // The key is most often the record's uuid: that one string serves both.
  const fact: RecordFact = { stream, line, event, blockKey: key === record.uuid ? record.uuid : key };
  if (record.uuid) fact.uuid = record.uuid;
  if (record.parentUuid) fact.parent = record.parentUuid;
  if (record.logicalParentUuid) fact.logicalParent = record.logicalParentUuid;
  if (record.promptId) fact.promptId = record.promptId;
  const time = record.timestamp ? Date.parse(record.timestamp) : NaN;
  if (!Number.isNaN(time)) fact.time = time;
  // origin.kind on the record, else (for an attachment) on attachment.origin.
  let origin: string | undefined;
  if (typeof record.origin?.kind === 'string') origin = record.origin.kind;
  else if (field(read, 'promptSource') === 'sdk') origin = 'human';

  switch (record.type) {
    case 'assistant':
      readAssistant(record as AssistantRecord, fact);
      break;
    case 'user':
      readUser(record as UserRecord, read, fact, origin);
      break;
    case 'attachment':
      origin = readAttachment(record as AttachmentRecord, fact, origin);
      break;
    case 'system':
      readSystem(record as SystemRecord, fact);
      break;
    case 'progress': {
      const { data, parentToolUseID } = record as ProgressRecord;
      if (data?.type === 'agent_progress' && typeof data.agentId === 'string' && parentToolUseID)
        fact.agentProgress = { agentId: data.agentId, toolUseId: parentToolUseID };
      break;
    }
    case 'permission-mode': {
      const mode = field(read, 'permissionMode');
      if (typeof mode === 'string') fact.permissionMode = mode;
      break;
    }
  }
  if (origin) fact.origin = TRIGGERS.get(origin) ?? 'unknown';
  return fact;
}

/**
 * A field wherever the reader put it: on the record once the dialect reads it, in `extra` until
 * then. The model does not depend on which fields the reader has learnt so far.
 */
function field(read: ReadRecord, name: string): Json | undefined {
  return (read.record as unknown as JsonObject)[name] ?? read.extra?.[name];
}

/**
 * A message's blocks at the positions the spine numbers them by; a string is one text block.
 * An entry that is not a block at all becomes an empty one, so positions never shift.
 */
function blocksOf(content: string | ContentBlock[] | undefined): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((b) => (typeof b === 'object' && b !== null && !Array.isArray(b) ? b : { type: '' }));
}

/** The tools whose use is an agent.call, as the glossary names them (Task is the Agent tool's older name). */
const AGENT_TOOLS = new Set(['Agent', 'Task', 'Skill', 'Workflow']);

function readAssistant(record: AssistantRecord, fact: RecordFact): void {
  const { message } = record;
  if (typeof message.id === 'string' && message.id) fact.messageId = message.id;
  if (typeof record.requestId === 'string' && record.requestId) fact.requestId = record.requestId;
  fact.synthetic = message.model === '<synthetic>';
  fact.stopped = !!message.stop_reason;
  const blocks: NonNullable<RecordFact['blocks']> = [];
  const toolUses: NonNullable<RecordFact['toolUses']> = [];
  blocksOf(message.content).forEach((block, order) => {
    if (block.type === 'text') blocks.push({ order, kind: 'text' });
    else if (block.type === 'thinking') blocks.push({ order, kind: 'thinking' });
    else if (block.type === 'redacted_thinking') blocks.push({ order, kind: 'redacted' });
    else if (block.type === 'tool_use' && typeof (block as { id?: unknown }).id === 'string') {
      const use: (typeof toolUses)[number] = { id: (block as { id: string }).id, order };
      if (AGENT_TOOLS.has((block as { name?: unknown }).name as string)) use.agent = true;
      toolUses.push(use);
    }
  });
  fact.blocks = fitted(blocks);
  fact.toolUses = fitted(toolUses);
}

/** The first text of a message: what its kind is read from (never kept). */
function firstText(blocks: ContentBlock[]): string {
  for (const block of blocks)
    if (block.type === 'text' && typeof (block as { text?: unknown }).text === 'string') return (block as { text: string }).text;
  return '';
}

function readUser(record: UserRecord, read: ReadRecord, fact: RecordFact, origin: string | undefined): void {
  const blocks = blocksOf(record.message.content);
  if (record.isCompactSummary) {
    fact.step = 'epoch.summary';
    return;
  }
  const results = blocks.filter((b) => b.type === 'tool_result' && typeof (b as { tool_use_id?: unknown }).tool_use_id === 'string');
  if (results.length) {
    fact.toolResults = fitted(
      blocks.flatMap((b, order) =>
        b.type === 'tool_result' && typeof (b as { tool_use_id?: unknown }).tool_use_id === 'string'
          ? [{ toolUseId: (b as { tool_use_id: string }).tool_use_id, order, isError: (b as { is_error?: unknown }).is_error === true }]
          : [],
      ),
    );
    // toolUseResult describes the record's one result; with several it cannot say which.
    if (results.length === 1) {
      const content = (results[0] as { content?: unknown }).content;
      const text = typeof content === 'string' ? content : firstText(Array.isArray(content) ? content : []);
      fact.outcome = outcomeOf(record.toolUseResult, text, field(read, 'toolDenialKind'));
      if (fact.outcome.status === 'async_launched') fact.step = 'agent.launch_ack';
      else if (fact.outcome.interrupted) fact.step = 'control.interrupt';
      else if (fact.outcome.denied) fact.step = 'control.permission';
    }
    return;
  }
  if (record.isMeta) {
    fact.step = 'context.injection';
    return;
  }
  const text = firstText(blocks);
  if (origin === 'task-notification' || (!origin && text.startsWith(NOTIFICATION))) {
    fact.step = 'runtime.notification';
    fact.stepEvidence = origin ? 'exact_unique' : 'strong_inference';
    fact.notification = notificationIds(text);
    fact.opensRun = true;
  } else if (text.startsWith(INTERRUPTED)) {
    fact.step = 'control.interrupt';
  } else if (COMMAND.test(text) || COMMAND_OUTPUT.test(text)) {
    fact.step = 'control.command';
    fact.opensRun = COMMAND.test(text);
  } else {
    fact.step = 'message.external';
    fact.stepEvidence = origin ? 'exact_unique' : 'strong_inference';
    fact.opensRun = true;
  }
}

function outcomeOf(result: Json | undefined, resultText: string, denial: Json | undefined): ToolOutcome {
  const outcome: ToolOutcome = {};
  if (typeof result === 'string') {
    if (result.startsWith(INTERRUPTED)) outcome.interrupted = true;
    else if (REJECTED.test(result)) outcome.denied = true;
  } else if (result && typeof result === 'object' && !Array.isArray(result)) {
    const r = result as JsonObject;
    if (typeof r.status === 'string') outcome.status = r.status;
    if (typeof r.agentId === 'string' && r.agentId) outcome.agentId = r.agentId;
    if (typeof r.runId === 'string' && r.runId) outcome.runId = r.runId;
    if (typeof r.backgroundTaskId === 'string' && r.backgroundTaskId) outcome.backgroundTaskId = r.backgroundTaskId;
    if (typeof r.interrupted === 'boolean') outcome.interrupted = r.interrupted;
    // Only three tools time themselves, each in its own field.
    if (typeof r.durationMs === 'number') outcome.durationMs = r.durationMs;
    else if (typeof r.totalDurationMs === 'number') outcome.durationMs = r.totalDurationMs;
    else if (typeof r.durationSeconds === 'number') outcome.durationMs = Math.round(r.durationSeconds * 1e6) / 1e3;
    const task = r.task as JsonObject | undefined;
    if (typeof r.exitCode === 'number') outcome.exitCode = r.exitCode;
    else if (task && typeof task === 'object' && typeof task.exitCode === 'number') outcome.exitCode = task.exitCode;
  }
  if (resultText.startsWith(INTERRUPTED)) outcome.interrupted = true;
  else if (REJECTED.test(resultText)) outcome.denied = true;
  if (denial === 'interrupted') outcome.interrupted = true;
  else if (typeof denial === 'string') outcome.denied = true;
  return outcome;
}

/** The ids a `<task-notification>` names: which task finished, and the tool use that began it. */
export function notificationIds(text: string): { taskId?: string; toolUseId?: string } {
  const ids: { taskId?: string; toolUseId?: string } = {};
  const task = /<task-id>\s*([^<\s]+)\s*<\/task-id>/.exec(text);
  const tool = /<tool-use-id>\s*([^<\s]+)\s*<\/tool-use-id>/.exec(text);
  if (task) ids.taskId = task[1];
  if (tool) ids.toolUseId = tool[1];
  return ids;
}

/** Reads an attachment into `fact`; returns the origin kind it states (its own, else its attachment's). */
function readAttachment(record: AttachmentRecord, fact: RecordFact, origin: string | undefined): string | undefined {
  const att = record.attachment ?? {};
  const attOrigin = (att.origin as JsonObject | undefined)?.kind;
  if (!origin && typeof attOrigin === 'string') origin = attOrigin;
  const prompt = typeof att.prompt === 'string' ? att.prompt : '';
  if (att.type === 'queued_command' && (att.commandMode ?? 'prompt') === 'prompt') {
    if (origin === 'task-notification' || (!origin && prompt.startsWith(NOTIFICATION))) {
      fact.step = 'runtime.notification';
      fact.stepEvidence = origin ? 'exact_unique' : 'strong_inference';
      fact.notification = notificationIds(prompt);
    } else {
      fact.step = 'message.external';
      fact.stepEvidence = origin ? 'exact_unique' : 'strong_inference';
    }
    return origin;
  }
  fact.step = 'context.injection';
  return origin;
}

function readSystem(record: SystemRecord, fact: RecordFact): void {
  switch (record.subtype) {
    case 'compact_boundary':
      fact.step = 'epoch.boundary';
      break;
    case 'api_error':
      fact.step = 'error.api';
      break;
    case 'local_command':
      fact.step = 'control.command';
      fact.opensRun = typeof record.content === 'string' && COMMAND.test(record.content);
      break;
    case 'turn_duration':
      fact.step = 'turn.duration';
      break;
    default:
      fact.step = 'control.notice';
  }
}
