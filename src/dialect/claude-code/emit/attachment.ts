import type { Json, JsonObject } from '../records.ts';
import { instanceIri, instanceKey } from '../../../rdf/iri.ts';
import { bool, int, num, str, type Term } from '../../../rdf/terms.ts';
import { jsonLiteral } from '../../../rdf/json.ts';
import { a, weave, type WeaveTerm } from '../../../rdf/vocab.ts';
import { content, Fields, firstMention, keepRest, ref, t, takeString, type RecordContext } from '../../../emit/record.ts';
import { idPath } from '../ids.ts';
import { hookRun } from './hooks.ts';
import { emitBlocks } from './turn.ts';
import { own } from '../../../own.ts';

/**
 * Attachments, carved as the ontology card carves them:
 * (A) kinds whose payload names something a reader follows (a file, a skill, a hook run, where a
 *     prompt came from) become a typed subclass with the edge;
 * (B) value-only kinds are one StateAttachment: the kind and the payload, whole;
 * (C) registry deltas are one RegistryDelta: the registry and one value per added/removed name.
 * A kind this project has never seen is (B), never dropped. For (A) and (C), what the emitter
 * does not map stays in the record's extraJson under "attachment"; texts get content states.
 */

/** (A) The hook outcomes: one command of a hook run and how it ended. */
const HOOK_EXEC = new Set([
  'hook_success',
  'hook_non_blocking_error',
  'hook_blocking_error',
  'hook_cancelled',
  'hook_error_during_execution',
  'hook_stopped_continuation',
  'hook_permission_decision',
  'hook_deferred_tool',
]);
/** Outcomes that mean the hook did not do its job. */
const HOOK_FAILURES = new Set(['hook_non_blocking_error', 'hook_blocking_error', 'hook_cancelled', 'hook_error_during_execution']);
/** (A) Text a hook put into the model's context. */
const HOOK_CONTEXT = new Set(['hook_additional_context', 'hook_system_message']);
/** (A) File references, with the field naming the path. */
const FILE_REF: Record<string, string> = {
  file: 'filename',
  edited_text_file: 'filename',
  compact_file_reference: 'filename',
  directory: 'path',
  plan_file_reference: 'planFilePath',
};
/** (C) Registry deltas: the registry, and the fields holding added and removed names. */
const REGISTRY: Record<string, { name: string; added: string; removed: string }> = {
  deferred_tools_delta: { name: 'tools', added: 'addedNames', removed: 'removedNames' },
  mcp_instructions_delta: { name: 'mcp', added: 'addedNames', removed: 'removedNames' },
  agent_listing_delta: { name: 'agents', added: 'addedTypes', removed: 'removedTypes' },
};

/** Which of the three carvings a kind falls in, and its class. */
export function attachmentClass(kind: string): WeaveTerm {
  if (kind === 'queued_command') return 'QueuedCommandAttachment';
  if (HOOK_CONTEXT.has(kind)) return 'HookContextAttachment';
  if (kind === 'nested_memory') return 'NestedMemoryAttachment';
  if (own(FILE_REF, kind)) return 'FileRefAttachment';
  if (kind === 'invoked_skills') return 'InvokedSkillsAttachment';
  if (HOOK_EXEC.has(kind)) return 'HookExecAttachment';
  if (own(REGISTRY, kind)) return 'RegistryDelta';
  return 'StateAttachment';
}

export function emitAttachment(record: JsonObject, ctx: RecordContext): void {
  const { event } = ctx;
  const raw = record.attachment;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw) || typeof (raw as JsonObject).type !== 'string') {
    // Not an attachment object: kept as it stands.
    if (raw !== undefined) keepRest(ctx, { attachment: raw });
    return;
  }
  const kind = (raw as JsonObject).type as string;
  const cls = attachmentClass(kind);
  t(ctx, event, a, weave[cls]);
  t(ctx, event, weave.attachmentKind, str(kind));
  if (cls === 'StateAttachment') {
    emitState(raw as JsonObject, kind, ctx);
    return;
  }
  // A copy the emitters take fields out of: what is left is what they did not read.
  const f = new Fields(structuredClone(raw) as JsonObject);
  f.consume('type');
  if (cls === 'QueuedCommandAttachment') emitQueuedCommand(f, ctx, record);
  else if (cls === 'HookContextAttachment') emitHookContext(f, ctx);
  else if (cls === 'NestedMemoryAttachment') emitNestedMemory(f, ctx);
  else if (cls === 'FileRefAttachment') emitFileRef(f, kind, ctx);
  else if (cls === 'InvokedSkillsAttachment') emitInvokedSkills(f, ctx);
  else if (cls === 'HookExecAttachment') emitHookExec(f, kind, ctx);
  else emitRegistryDelta(f, own(REGISTRY, kind)!, ctx);
  keepRest(ctx, f.rest(), 'attachment');
}

/** (B) The kind and its payload; for the skill listing, also the names it lists. */
function emitState(attachment: JsonObject, kind: string, ctx: RecordContext): void {
  content(ctx, ctx.event, weave.attachmentJson, attachment, { kind: 'payload', pointer: '/attachment' });
  if (kind === 'skill_listing') for (const name of listedSkills(attachment)) t(ctx, ctx.event, weave.skillName, str(name));
}

/**
 * The skills a listing names, each once: `names` (2.1.220+), else the `- name: description` lines
 * of its markdown `content`. A plugin's skill is `plugin:skill`, so the name ends at the first
 * colon followed by a space (or the line's end), not at the first colon.
 */
export function listedSkills(attachment: JsonObject): string[] {
  const names = attachment.names;
  if (Array.isArray(names)) return [...new Set(names.filter((n): n is string => typeof n === 'string'))];
  if (typeof attachment.content !== 'string') return [];
  return [...new Set([...attachment.content.matchAll(/^- ([^\n]+?):(?: |$)/gm)].map((m) => m[1].trim()))];
}

/** A path on disk: one node per path, shared by every session that names it. */
export function fileNode(ctx: RecordContext, path: string): Term {
  const node = instanceIri(ctx.soul, 'File', path);
  if (firstMention(ctx, node)) {
    t(ctx, node, a, weave.File);
    t(ctx, node, weave.filePath, str(path));
  }
  return node;
}

function hookFields(f: Fields, ctx: RecordContext): void {
  const name = f.string('hookName');
  if (name) t(ctx, ctx.event, weave.hookName, str(name));
  const hookEvent = f.string('hookEvent');
  if (hookEvent) t(ctx, ctx.event, weave.hookEvent, str(hookEvent));
  const id = f.string('toolUseID');
  if (id) {
    t(ctx, ctx.event, weave.toolUseId, str(id));
    t(ctx, ctx.event, weave.hookRun, hookRun(ctx, id, hookEvent));
  }
}

/** A text field of the attachment, taken out and stored with its content state. */
function text(f: Fields, ctx: RecordContext, path: (string | number)[], predicate: Term = weave.text, index?: number): void {
  const value = takeString(f.raw, path);
  if (value !== undefined) content(ctx, ctx.event, predicate, value, { kind: 'text', pointer: `/attachment/${path.join('/')}`, index });
}

/** (A) A prompt typed while the agent was busy: its text, mode, and where it came from. */
function emitQueuedCommand(f: Fields, ctx: RecordContext, record: JsonObject): void {
  const { event } = ctx;
  if (typeof f.raw.prompt === 'string') text(f, ctx, ['prompt']);
  else if (Array.isArray(f.raw.prompt)) {
    // A hand-written uuid is scoped by its session (ids.ts); a record without one is named after its stream and line.
    const id = typeof record.uuid === 'string' && record.uuid ? idPath(record.uuid, ctx.session) : [instanceKey(event)];
    emitBlocks(f.json('prompt'), ctx, event, id, '/attachment/prompt', []);
  }
  const mode = f.string('commandMode');
  if (mode) t(ctx, event, weave.commandMode, str(mode));
  const source = f.string('source_uuid');
  if (source) {
    ref(ctx, event, weave.sourceEvent, 'event', source, weave.sourceEventId);
  }
  const origin = f.object('origin');
  if (origin) {
    const kind = typeof origin.kind === 'string' ? origin.kind : undefined;
    const server = typeof origin.server === 'string' ? origin.server : undefined;
    t(ctx, event, weave.origin, jsonLiteral(origin));
    if (kind) t(ctx, event, weave.originKind, str(kind));
    if (server) t(ctx, event, weave.originServer, str(server));
    if (kind) {
      const node = instanceIri(ctx.soul, 'PromptOrigin', kind, ...(server ? [server] : []));
      t(ctx, event, weave.promptOrigin, node);
      t(ctx, node, a, weave.PromptOrigin);
      t(ctx, node, weave.originKind, str(kind));
      if (server) t(ctx, node, weave.originServer, str(server));
    }
  }
}

/** (A) Context a hook injected, linked to the hook run that produced it. */
function emitHookContext(f: Fields, ctx: RecordContext): void {
  hookFields(f, ctx);
  const items = f.raw.content;
  if (typeof items === 'string') text(f, ctx, ['content']);
  else if (Array.isArray(items) && items.every((x) => typeof x === 'string')) {
    f.consume('content');
    for (const [i, item] of items.entries())
      content(ctx, ctx.event, weave.text, item, { kind: 'text', pointer: `/attachment/content/${i}`, index: i });
  }
}

/** (A) A memory file (CLAUDE.md, rules) loaded on demand: the file and its text. */
function emitNestedMemory(f: Fields, ctx: RecordContext): void {
  const path = f.string('path');
  if (path) t(ctx, ctx.event, weave.file, fileNode(ctx, path));
  const display = f.string('displayPath');
  if (display) t(ctx, ctx.event, weave.displayPath, str(display));
  if (typeof f.raw.content === 'string') text(f, ctx, ['content']);
  else if (f.raw.content && typeof f.raw.content === 'object') {
    const memoryType = takeString(f.raw, ['content', 'type']);
    if (memoryType) t(ctx, ctx.event, weave.memoryType, str(memoryType));
    text(f, ctx, ['content', 'content']);
  }
}

/** (A) A file or directory the conversation mentioned, edited or dropped from context. */
function emitFileRef(f: Fields, kind: string, ctx: RecordContext): void {
  const path = f.string(own(FILE_REF, kind)!);
  if (path) t(ctx, ctx.event, weave.file, fileNode(ctx, path));
  const display = f.string('displayPath');
  if (display) t(ctx, ctx.event, weave.displayPath, str(display));
  if (kind === 'file') text(f, ctx, ['content', 'file', 'content']);
  if (kind === 'edited_text_file') text(f, ctx, ['snippet']);
  if (kind === 'directory') text(f, ctx, ['content']);
  if (kind === 'plan_file_reference') text(f, ctx, ['planContent']);
}

/** (A) Skills invoked: one shared Skill node per name, and each skill body as text. */
function emitInvokedSkills(f: Fields, ctx: RecordContext): void {
  const skills = f.raw.skills;
  if (!Array.isArray(skills)) return;
  skills.forEach((skill: Json, i) => {
    if (!skill || typeof skill !== 'object' || Array.isArray(skill) || typeof skill.name !== 'string') return;
    const node = instanceIri(ctx.soul, 'Skill', skill.name);
    t(ctx, ctx.event, weave.invokedSkill, node);
    if (firstMention(ctx, node)) {
      t(ctx, node, a, weave.Skill);
      t(ctx, node, weave.skillName, str(skill.name));
    }
    delete skill.name;
    if (typeof skill.path === 'string') {
      // A skill's path may differ between mentions: each one is kept.
      t(ctx, node, weave.skillPath, str(skill.path));
      delete skill.path;
    }
    text(f, ctx, ['skills', i, 'content'], weave.text, i);
  });
  if (skills.every((s) => s && typeof s === 'object' && !Array.isArray(s) && !Object.keys(s).length)) f.consume('skills');
}

/** (A) One hook command's outcome, linked to its hook run; failures say so. */
function emitHookExec(f: Fields, kind: string, ctx: RecordContext): void {
  const { event } = ctx;
  hookFields(f, ctx);
  const outcome = kind.replace(/^hook_/, '');
  t(ctx, event, weave.hookOutcome, str(outcome));
  const command = f.string('command');
  if (command !== undefined) t(ctx, event, weave.hookCommand, str(command));
  const exitCode = f.integer('exitCode');
  if (exitCode !== undefined) t(ctx, event, weave.exitCode, int(exitCode));
  const ms = f.number('durationMs');
  if (ms !== undefined) t(ctx, event, weave.durationMs, num(ms));
  const timedOut = f.boolean('timedOut');
  if (timedOut !== undefined) t(ctx, event, weave.timedOut, bool(timedOut));
  t(ctx, event, weave.hookFailed, bool(HOOK_FAILURES.has(kind) || (exitCode !== undefined && exitCode !== 0)));
  text(f, ctx, ['stdout'], weave.stdout);
  text(f, ctx, ['stderr'], weave.stderr);
  if (typeof f.raw.content === 'string') text(f, ctx, ['content']);
  else text(f, ctx, ['message']);
  text(f, ctx, ['blockingError', 'blockingError'], weave.hookError);
  const blockingCommand = command === undefined ? takeString(f.raw, ['blockingError', 'command']) : undefined;
  if (blockingCommand !== undefined) t(ctx, event, weave.hookCommand, str(blockingCommand));
  const decision = f.string('decision');
  if (decision) t(ctx, event, weave.permissionDecision, str(decision));
  const toolName = f.string('toolName');
  if (toolName) t(ctx, event, weave.toolName, str(toolName));
  const input = f.json('toolInput');
  if (input !== undefined) content(ctx, event, weave.toolInput, input, { kind: 'toolInput', pointer: '/attachment/toolInput' });
  const mode = f.string('permissionMode');
  if (mode) t(ctx, event, weave.permissionMode, str(mode));
}

/** (C) A change to a registry: one value per name added, removed or added back. */
function emitRegistryDelta(f: Fields, registry: { name: string; added: string; removed: string }, ctx: RecordContext): void {
  const { event } = ctx;
  t(ctx, event, weave.registryName, str(registry.name));
  for (const name of f.strings(registry.added) ?? []) t(ctx, event, weave.addedNames, str(name));
  for (const name of f.strings(registry.removed) ?? []) t(ctx, event, weave.removedNames, str(name));
  for (const name of f.strings('readdedNames') ?? []) t(ctx, event, weave.readdedNames, str(name));
}
