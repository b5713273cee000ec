/**
 * The conversation model's vocabulary, free of any runtime's words: every name the model can put
 * on the graph, the ontology term that carries it, and what it means. A dialect's glossary
 * (src/dialect/<runtime>/glossary.ts) says what its runtime calls each of these; the ontology file
 * `ontology/parts/model.ttl` is rendered from both (src/model/ontology.ts).
 */

type Category = 'structure' | 'step' | 'relation' | 'role' | 'evidence' | 'content' | 'trigger';

/** Where an ontology term is declared: by the model here, or in another ontology file (weave.ttl, records.ttl). */
type Declared = 'model' | 'elsewhere';

export interface OntologyTerm {
  /** Local name in the weave namespace. */
  name: string;
  form: 'class' | 'object' | 'datatype' | 'individual';
  declared: Declared;
  label: string;
  comment: string;
  /** For classes: superclasses; for individuals: their class. Local names. */
  types?: string[];
  /** A class, or several: their union. */
  domain?: Classes;
  range?: Classes;
}

type Classes = string | string[];

/**
 * `cls` or the weave:Unresolved placeholder standing in its place: where a link can end (or start)
 * at one, the union keeps a reasoner from typing the placeholder as what it stands in for.
 */
const orUnresolved = (cls: string): string[] => [cls, 'Unresolved'];

interface ModelTerm {
  /** The model's name: `llm.call`, `starts`, `exact_unique`. */
  term: string;
  category: Category;
  /** The ontology terms carrying it; the first is the main one. Spine terms are only referenced. */
  iris: string[];
}

/** Model terms, by category. A term appearing in two categories (run, stream, tool) is listed once. */
export const MODEL_TERMS: readonly ModelTerm[] = [
  // Structure: the containment tree session → stream → epoch → talk → run → step.
  { term: 'conversation', category: 'structure', iris: ['Conversation', 'inConversation', 'continuesFrom'] },
  { term: 'segment', category: 'structure', iris: ['Segment', 'segmentPolicy', 'segmentState', 'activeFrom', 'activeUntil'] },
  { term: 'session', category: 'structure', iris: ['Session'] },
  { term: 'stream', category: 'structure', iris: ['Stream', 'recordedIn', 'streamName'] },
  { term: 'epoch', category: 'structure', iris: ['Epoch'] },
  { term: 'talk', category: 'structure', iris: ['Talk', 'labelledBy'] },
  { term: 'run', category: 'structure', iris: ['Run', 'runKey', 'runRule', 'promptId'] },
  { term: 'step', category: 'structure', iris: ['Step'] },
  // Steps: the leaves.
  { term: 'message.external', category: 'step', iris: ['ExternalMessage'] },
  { term: 'message.assistant', category: 'step', iris: ['AssistantMessage'] },
  { term: 'message.synthetic', category: 'step', iris: ['SyntheticMessage'] },
  { term: 'context.injection', category: 'step', iris: ['ContextInjection'] },
  { term: 'llm.call', category: 'step', iris: ['LlmCall', 'firstFragment', 'lastFragment', 'fragmentCount'] },
  { term: 'thinking', category: 'step', iris: ['Thinking'] },
  { term: 'tool', category: 'step', iris: ['ToolCall', 'toolRequest', 'toolResponse', 'toolUseId'] },
  { term: 'agent.call', category: 'step', iris: ['AgentCall'] },
  { term: 'agent.launch_ack', category: 'step', iris: ['AgentLaunchAck'] },
  { term: 'agent.output', category: 'step', iris: ['AgentOutput', 'outputCall'] },
  { term: 'runtime.notification', category: 'step', iris: ['RuntimeNotification'] },
  { term: 'epoch.boundary', category: 'step', iris: ['EpochBoundary'] },
  { term: 'epoch.summary', category: 'step', iris: ['EpochSummary'] },
  { term: 'error.api', category: 'step', iris: ['ApiError'] },
  { term: 'control.interrupt', category: 'step', iris: ['Interrupt'] },
  { term: 'control.permission', category: 'step', iris: ['PermissionDecision'] },
  { term: 'control.command', category: 'step', iris: ['LocalCommand'] },
  { term: 'control.notice', category: 'step', iris: ['RuntimeNotice'] },
  { term: 'turn.duration', category: 'step', iris: ['TurnDuration'] },
  // Relations: each name is a verb.
  { term: 'within', category: 'relation', iris: ['within'] },
  { term: 'starts', category: 'relation', iris: ['starts'] },
  { term: 'reports', category: 'relation', iris: ['reports'] },
  { term: 'ends_with', category: 'relation', iris: ['endsWith'] },
  { term: 'result_of', category: 'relation', iris: ['resultOf'] },
  { term: 'follows', category: 'relation', iris: ['follows'] },
  { term: 'summarizes', category: 'relation', iris: ['summarizes'] },
  { term: 'produces', category: 'relation', iris: ['produces'] },
  { term: 'cancels', category: 'relation', iris: ['cancels'] },
  { term: 'in_segment', category: 'relation', iris: ['inSegment'] },
  { term: 'retries', category: 'relation', iris: ['retries'] },
  { term: 'input_of', category: 'relation', iris: ['inputOf'] },
  // Roles: what a record says about itself.
  { term: 'id', category: 'role', iris: ['eventId'] },
  { term: 'parent', category: 'role', iris: ['parentEvent'] },
  { term: 'call', category: 'role', iris: ['fragmentOf', 'messageId'] },
  { term: 'batch', category: 'role', iris: ['batchId'] },
  { term: 'continues', category: 'role', iris: ['logicalParentEvent'] },
  { term: 'child', category: 'role', iris: ['childAgentId'] },
  { term: 'time', category: 'role', iris: ['timestamp'] },
  { term: 'trigger', category: 'role', iris: ['trigger'] },
  { term: 'model', category: 'role', iris: ['model'] },
  // Evidence levels: how well a link is founded.
  { term: 'exact_unique', category: 'evidence', iris: ['exact_unique'] },
  { term: 'exact_ambiguous', category: 'evidence', iris: ['exact_ambiguous'] },
  { term: 'strong_inference', category: 'evidence', iris: ['strong_inference'] },
  { term: 'weak_inference', category: 'evidence', iris: ['weak_inference'] },
  { term: 'unresolved', category: 'evidence', iris: ['unresolved', 'Unresolved'] },
  { term: 'conflict', category: 'evidence', iris: ['conflict'] },
  // Content states: how much of a stored text the graph holds (stated by the records layer).
  { term: 'available', category: 'content', iris: ['ContentAvailable'] },
  { term: 'truncated', category: 'content', iris: ['ContentTruncated'] },
  { term: 'hash_only', category: 'content', iris: ['ContentHashOnly'] },
  { term: 'size_only', category: 'content', iris: ['ContentSizeOnly'] },
  { term: 'unavailable', category: 'content', iris: ['ContentUnavailable'] },
  { term: 'omitted', category: 'content', iris: ['ContentOmitted'] },
  { term: 'redacted', category: 'content', iris: ['ContentRedacted'] },
  // Triggers: what started a run.
  { term: 'external', category: 'trigger', iris: ['external'] },
  { term: 'notification', category: 'trigger', iris: ['notification'] },
  { term: 'unknown', category: 'trigger', iris: ['unknown'] },
];

const C = (name: string, label: string, comment: string, types: string[] = []): OntologyTerm => ({
  name,
  form: 'class',
  declared: 'model',
  label,
  comment,
  types,
});
const O = (name: string, label: string, comment: string, domain?: Classes, range?: Classes): OntologyTerm => ({
  name,
  form: 'object',
  declared: 'model',
  label,
  comment,
  domain,
  range,
});
const D = (name: string, label: string, comment: string, domain?: Classes, range?: Classes): OntologyTerm => ({
  name,
  form: 'datatype',
  declared: 'model',
  label,
  comment,
  domain,
  range,
});
const I = (name: string, type: string, label: string, comment: string): OntologyTerm => ({
  name,
  form: 'individual',
  declared: 'model',
  label,
  comment,
  types: [type],
});
const ELSEWHERE = (name: string): OntologyTerm => ({ name, form: 'datatype', declared: 'elsewhere', label: name, comment: '' });

/**
 * Every ontology term the model uses, with its definition in our words. Terms another ontology
 * file declares are marked `elsewhere`: model.ttl only adds their notation and runtime names.
 */
export const ONTOLOGY_TERMS: readonly OntologyTerm[] = [
  // Structure
  C(
    'ModelNode',
    'Model node',
    'A node of the conversation model: the session, a stream, epoch, talk or run, or a step (a record, a block, or records tied by an id). Every one but the session sits in the containment tree through within.',
  ),
  C(
    'Conversation',
    'Conversation',
    'The durable unit a conversation is owned, stored and exported as. Its identity is supplied, never inferred: for Claude Code it is the session id, so each session is one conversation; a session that goes on from a record of another session says so (continuesFrom).',
    ['ModelNode'],
  ),
  C(
    'Segment',
    'Segment',
    "A window of activity that could be committed on its own: the main stream cut where it was idle for longer than the policy's gap (v1+idle=10m0s). Its talks, from every stream, belong to it (inSegment). The last window is open, earlier ones are candidates; nothing commits one yet.",
    ['ModelNode'],
  ),
  C('Session', 'Session', 'The runtime session the records came from, kept as provenance: the root of the containment tree.', [
    'ModelNode',
  ]),
  C(
    'Stream',
    'Stream',
    'One ordered lineage of records: the session file is the main stream, each sub-agent transcript a child stream. Membership comes from the file a record sits in, never from a field.',
    ['ModelNode'],
  ),
  C(
    'Epoch',
    'Epoch',
    'The lifetime of one model context inside a stream: the records between two compaction boundaries. A stream that never compacted is one epoch.',
    ['ModelNode'],
  ),
  C(
    'Talk',
    'Talk',
    'One readable interaction: input from outside the agent, the runs that followed, and what came back. A child stream is always one talk.',
    ['ModelNode'],
  ),
  C(
    'Run',
    'Run',
    'One loop of the agent in answer to one trigger: the records of one prompt id within one stream, or, in a stream that writes no prompt ids, the records that descend from one prompt.',
    ['ModelNode'],
  ),
  C(
    'Step',
    'Step',
    'One observed occurrence inside a run: a leaf of the containment tree. A step is a record, a content block, or a group of records the runtime ties together by id; never an invented event.',
    ['ModelNode'],
  ),
  C(
    'Unresolved',
    'Unresolved',
    'A placeholder for something the records point at but the session does not hold (a tool result never written, a child announced but never landed, a continuation whose tail is missing). It stands in the link instead of a silent gap, typed Unresolved and nothing else: its kind says what it stands in for.',
  ),
  // Steps
  C('ExternalMessage', 'External message', 'Input that came from outside the agent, typically a person typing.', ['Step']),
  C('AssistantMessage', 'Assistant message', 'Text the model produced for whoever asked: one text block of a response.', ['Step']),
  C(
    'SyntheticMessage',
    'Synthetic message',
    "A response the client wrote itself (after a lost connection, a provider error or a quota stop) with no model behind it: its records, grouped like a call's, but no LlmCall. Never counted as model output.",
    ['Step'],
  ),
  C(
    'ContextInjection',
    'Context injection',
    'Material the harness put into the model context on its own: instructions, memory, reminders, hook output, catalogues.',
    ['Step'],
  ),
  C(
    'LlmCall',
    'LLM call',
    "One provider call: the response records that share one message id, in line order. Its usage is the last fragment's, never a sum. One node per call across sessions when the API minted its ids; what a session holds of it is stated in that session's graph.",
    ['Step'],
  ),
  C('Thinking', 'Thinking', 'Reasoning attached to a response: one thinking or redacted-thinking block.', ['Step']),
  C(
    'ToolCall',
    'Tool call',
    'One tool use as one step: the request the model made and the result that came back, joined by the exact tool use id across every stream of the session. One node per tool use id across sessions when the API minted it.',
    ['Step'],
  ),
  C(
    'AgentCall',
    'Agent call',
    'A use of a tool that runs an agent (Agent, Task, Skill or Workflow), and any tool call that started or continued a child stream. Whether a child stream is joined to it is its own, evidenced link (starts).',
    ['ToolCall'],
  ),
  C(
    'AgentLaunchAck',
    'Agent launch acknowledgement',
    "The runtime saying a background child has started. An acknowledgement, not the child's result.",
    ['Step'],
  ),
  C(
    'AgentOutput',
    'Agent output',
    "The final output of a child stream, owned by that stream: its last real response, with the workflow journal's returned value when there is one.",
    ['Step'],
  ),
  C(
    'RuntimeNotification',
    'Runtime notification',
    'The runtime telling the parent that something it started in the background (a child agent, a shell) has finished.',
    ['Step'],
  ),
  C('EpochBoundary', 'Epoch boundary', 'An explicit reset of the model context: the record that opens a new epoch.', ['Step']),
  C('EpochSummary', 'Epoch summary', 'The summary a reset carried forward into the new context.', ['Step']),
  C('ApiError', 'API error', 'A provider error the runtime recorded, with its retry bookkeeping.', ['Step']),
  C('Interrupt', 'Interrupt', 'An interruption from outside the agent: a person stopping a response or a running tool.', ['Step']),
  C('PermissionDecision', 'Permission decision', 'A permission mode change, or a tool use the person refused.', ['Step']),
  C('LocalCommand', 'Local command', 'A runtime command typed in-line (a slash command or shell escape) and what it printed.', ['Step']),
  C(
    'RuntimeNotice',
    'Runtime notice',
    'The runtime telling the person something about the session itself (a recap, a lost connection, a hook summary): every system record no other step kind names.',
    ['Step'],
  ),
  C('TurnDuration', 'Turn duration', 'A duration the runtime measured for a finished turn; not a gap between two timestamps.', ['Step']),
  C(
    'RunRule',
    'Run rule',
    'Why a run exists: the rule that found the loop in the records, from a stated prompt id down to the shape of a chain of records.',
  ),
  C(
    'EvidenceLevel',
    'Evidence level',
    'How well a derived link is founded, from an exact unique identifier match down to no usable evidence.',
  ),
  C('Trigger', 'Trigger', 'What started a run: input from outside, a runtime notification, or nothing the records state.'),
  // Relations
  O(
    'within',
    'within',
    'Containment: the one node of the tree this node sits in (a stream in its session, a run in its talk, a step in its run or call).',
    orUnresolved('ModelNode'),
    orUnresolved('ModelNode'),
  ),
  O('starts', 'starts', 'An agent call started this child stream.', orUnresolved('AgentCall'), orUnresolved('Stream')),
  O(
    'reports',
    'reports',
    'A runtime notification announces that this child stream, or this background tool, has finished.',
    'RuntimeNotification',
  ),
  O('endsWith', 'ends with', "A child stream's final output.", 'Stream', 'AgentOutput'),
  O(
    'resultOf',
    'result of',
    "A record carries the result of this tool call; a child's output is the result of the agent call that started it.",
    undefined,
    orUnresolved('ToolCall'),
  ),
  O('follows', 'follows', 'An epoch continues the epoch before its reset.', 'Epoch', orUnresolved('Epoch')),
  O(
    'summarizes',
    'summarizes',
    "A reset's summary stands for the boundary that produced it.",
    'EpochSummary',
    orUnresolved('EpochBoundary'),
  ),
  O(
    'produces',
    'produces',
    "A compaction summariser's stream wrote the summary a reset carried forward. No call starts such a stream; this link is what ties it to the session's conversation.",
    'Stream',
    orUnresolved('EpochSummary'),
  ),
  O('cancels', 'cancels', 'An interruption ended this operation: a tool call, a provider call or a run.', 'Interrupt'),
  O(
    'inSegment',
    'in segment',
    "A talk belongs to this commit window: a main-stream talk to the window its first record falls in, a child stream's talk to the window its first record's time falls in.",
    'Talk',
    'Segment',
  ),
  O('inConversation', 'in conversation', 'A session, or one of its segments, belongs to this conversation.', undefined, 'Conversation'),
  O(
    'continuesFrom',
    'continues from',
    "A conversation goes on from this record of another session (a resumed session whose first records' parent is not in it). Stated by the pass across sessions, which finds the record.",
    'Conversation',
    'Event',
  ),
  O(
    'retries',
    'retries',
    'An attempt replaced this earlier one. Claude Code records no retry identity, so this is never emitted.',
    'LlmCall',
    'LlmCall',
  ),
  O(
    'inputOf',
    'input of',
    'A record was part of the input of this provider call. The serialized request is not written locally, so this is never emitted.',
    undefined,
    'LlmCall',
  ),
  // Roles and attributes of model nodes
  O('recordedIn', 'recorded in', 'The transcript file a stream was read from.', 'Stream', 'Transcript'),
  D('streamName', 'stream name', '"main" for the session file, else the child agent\'s id.', 'Stream', 'xsd:string'),
  D('streamRole', 'stream role', 'main or child.', 'Stream', 'xsd:string'),
  O(
    'labelledBy',
    'labelled by',
    'The record whose text names a talk: its first external message, else the command that opened it.',
    'Talk',
    'Step',
  ),
  O('runRule', 'run rule', "The rule by which the records show this loop; its evidence is the rule's.", 'Run', 'RunRule'),
  D(
    'segmentPolicy',
    'segment policy',
    'The policy the window was cut by: v1+idle=10m0s cuts the main stream after more than ten idle minutes.',
    'Segment',
    'xsd:string',
  ),
  D(
    'segmentState',
    'segment state',
    "open for a session's last window, candidate for the earlier ones: whether it could still grow.",
    'Segment',
    'xsd:string',
  ),
  D('activeFrom', 'active from', "The time of the window's first main-stream record that states one.", 'Segment', 'xsd:dateTime'),
  D('activeUntil', 'active until', "The time of the window's last main-stream record that states one.", 'Segment', 'xsd:dateTime'),
  D(
    'runKey',
    'run key',
    'What identifies a run within its stream: the prompt id, or in a stream without prompt ids the uuid of the prompt record that opened it.',
    'Run',
    'xsd:string',
  ),
  O('trigger', 'trigger', 'What started a run.', 'Run', 'Trigger'),
  O(
    'fragmentOf',
    'fragment of',
    'An assistant record is one fragment of this provider call, or of a synthetic message (same message id).',
    'AssistantTurn',
    undefined,
  ),
  O('firstFragment', 'first fragment', 'The first record of a call (or synthetic message) in line order.', undefined, 'AssistantTurn'),
  O(
    'lastFragment',
    'last fragment',
    'The last record of a call (or synthetic message) in line order: the one whose usage counts, since every fragment repeats or grows the usage and summing them over-counts.',
    undefined,
    'AssistantTurn',
  ),
  D('fragmentCount', 'fragment count', 'How many records the call (or synthetic message) was written as.', undefined, 'xsd:integer'),
  D(
    'usageFinal',
    'usage final',
    'Whether the last fragment states a stop reason; without one its usage may be a partial snapshot.',
    'LlmCall',
    'xsd:boolean',
  ),
  O('toolRequest', 'tool request', 'The tool use block of a tool call.', 'ToolCall', orUnresolved('ToolUseBlock')),
  O('toolResponse', 'tool response', 'The tool result block that answered a tool call.', 'ToolCall', orUnresolved('ToolResultBlock')),
  D('toolStatus', 'tool status', 'toolUseResult.status: completed, async_launched, forked, …', 'ToolCall', 'xsd:string'),
  D('interrupted', 'interrupted', 'The runtime says the tool was interrupted (toolUseResult.interrupted).', 'ToolCall', 'xsd:boolean'),
  D(
    'runtimeDurationMs',
    'runtime duration (ms)',
    'How long the tool ran, as the runtime measured it, in milliseconds; only some tools report it.',
    'ToolCall',
    'xsd:decimal',
  ),
  D('toolExitCode', 'tool exit code', 'The exit status a tool reported.', 'ToolCall', 'xsd:integer'),
  D('resultIsError', 'result is error', 'The tool result was flagged as an error.', 'ToolCall', 'xsd:boolean'),
  D(
    'backgroundTaskId',
    'background task id',
    'The id under which a tool kept running in the background; notifications name it.',
    'ToolCall',
    'xsd:string',
  ),
  D(
    'batchId',
    'batch id',
    'The group of children a call started together (a workflow run id): a join key, not a node.',
    undefined,
    'xsd:string',
  ),
  D('childAgentId', 'child agent id', 'The child agent a call names.', 'ToolCall', 'xsd:string'),
  O('outputCall', 'output call', "The provider call that carried a child's final output.", 'AgentOutput', 'LlmCall'),
  D('returnedValue', 'returned value', "What a workflow child returned, from the run's journal.", 'AgentOutput', 'rdf:JSON'),
  D(
    'firstLine',
    'first line',
    "The line of its stream's file where a model node begins; orders siblings in the tree.",
    orUnresolved('ModelNode'),
    'xsd:integer',
  ),
  O('evidence', 'evidence', "The evidence level of a derived link, stated on the link's reifier.", undefined, 'EvidenceLevel'),
  D(
    'unresolvedKind',
    'unresolved kind',
    'What could not be found: tool_result, tool_use, child_stream, notified_child, spawn_call, spawn_of_child, epoch_continuation, run, summarized_boundary, epoch_summary.',
    'Unresolved',
    'xsd:string',
  ),
  D('missingId', 'missing id', 'The id that was looked for and not found.', 'Unresolved', 'xsd:string'),
  C(
    'DialectMapping',
    'Dialect mapping',
    'What one dialect calls a model term and where its records say it; a term the runtime has no word for has only a note.',
  ),
  O('nativeTerm', 'native term', "A dialect's mapping of this model term.", undefined, 'DialectMapping'),
  D('dialect', 'dialect', 'The dialect a mapping belongs to, such as claude-code/1.', 'DialectMapping', 'xsd:string'),
  D('runtimeName', 'runtime name', 'What the runtime calls the term.', 'DialectMapping', 'xsd:string'),
  D('runtimeWhere', 'runtime location', "Where in the runtime's records the runtime name appears.", 'DialectMapping', 'xsd:string'),
  D('dialectNote', 'dialect note', "The dialect's remark on the term.", 'DialectMapping', 'xsd:string'),
  D(
    'readByDialect',
    'read by dialect',
    "Whether this project reads the term from the runtime's records (or, for a derived term, emits it).",
    'DialectMapping',
    'xsd:boolean',
  ),
  // Evidence levels
  I('exact_unique', 'EvidenceLevel', 'exact, unique', 'An identifier matched exactly one candidate.'),
  I(
    'exact_ambiguous',
    'EvidenceLevel',
    'exact, ambiguous',
    'An identifier matched several candidates and nothing chose between them; each is linked.',
  ),
  I(
    'strong_inference',
    'EvidenceLevel',
    'strong inference',
    "No identifier, but a sound structural argument (a walk up parent links, a file's folder).",
  ),
  I('weak_inference', 'EvidenceLevel', 'weak inference', 'Plausible only: position or proximity.'),
  I('unresolved', 'EvidenceLevel', 'unresolved', 'No usable evidence: the link points at an Unresolved placeholder.'),
  I('conflict', 'EvidenceLevel', 'conflict', 'Sources disagree; every candidate is linked and none is preferred.'),
  // Run rules
  I('byPromptId', 'RunRule', 'by prompt id', 'One run per prompt id in a stream: the records state it (exact).'),
  I(
    'byOpeningRecord',
    'RunRule',
    'by opening record',
    'In a stream that writes no prompt ids, a typed prompt, a command or a notification opens a run, and what descends from it belongs to it.',
  ),
  I(
    'afterCompaction',
    'RunRule',
    'after compaction',
    'The work that goes on after a compaction whose pre-compaction tail is not in the session: a run opened by the boundary, since the loop went on through the reset.',
  ),
  I(
    'fromElsewhere',
    'RunRule',
    'from elsewhere',
    "A chain of records whose parent is not in the session (a resumed session, a copied excerpt) and that holds a model response or a tool result: a loop begun elsewhere, opened here by the chain's first record.",
  ),
  I(
    'fromChainRoot',
    'RunRule',
    'from chain root',
    'A chain of records that starts with no parent, opens nothing the other rules know, and holds a model response or a tool result (a file that starts mid-loop): a run opened by its root.',
  ),
  // Triggers
  I(
    'external',
    'Trigger',
    'external',
    'The run began with input from outside the agent, or with a record that states no trigger at all and reads as typed input.',
  ),
  I('notification', 'Trigger', 'notification', 'The run began with a runtime notification that something finished.'),
  I('unknown', 'Trigger', 'unknown', 'No record of the run states what started it.'),
  // Terms the model maps to that other ontology files declare: the spine's fields, the content states
  ...['eventId', 'parentEvent', 'messageId', 'logicalParentEvent', 'timestamp', 'model', 'promptId', 'toolUseId'].map(ELSEWHERE),
  // …and the records layer's note of a link to another session, which the model writes for a conversation's continuation
  ...['CrossSessionReference', 'referenceFrom', 'referenceProperty', 'referenceTargetId'].map(ELSEWHERE),
  ...[
    'ContentAvailable',
    'ContentTruncated',
    'ContentHashOnly',
    'ContentSizeOnly',
    'ContentUnavailable',
    'ContentOmitted',
    'ContentRedacted',
  ].map(ELSEWHERE),
];

const SUPERCLASSES = new Map<string, string[]>();
for (const t of ONTOLOGY_TERMS) if (t.form === 'class' && t.declared === 'model') SUPERCLASSES.set(t.name, t.types ?? []);

/** Every superclass the model's ontology declares for a class, nearest first (none for a class declared elsewhere). */
export function superclassesOf<N extends string>(name: N): N[] {
  const out: N[] = [];
  const walk = (n: string) => {
    for (const sup of SUPERCLASSES.get(n) ?? [])
      if (!out.includes(sup as N)) {
        out.push(sup as N);
        walk(sup);
      }
  };
  walk(name);
  return out;
}
