import { createHash } from 'node:crypto';
import type {
  AssistantRecord,
  ContentBlock,
  ImageBlock,
  Json,
  JsonObject,
  ToolResultBlock,
  ToolUseBlock,
  Usage,
  UserRecord,
} from '../records.ts';
import { BLOCK_FIELDS } from '../fields.ts';
import { instanceIri, instanceKey } from '../../../rdf/iri.ts';
import { jsonLiteral } from '../../../rdf/json.ts';
import { bool, int, str, type Term } from '../../../rdf/terms.ts';
import { a, weave, type WeaveTerm } from '../../../rdf/vocab.ts';
import { pointerToken, type ContentKind } from '../../../emit/content.ts';
import { absent, content, firstMention, ref, t, type RecordContext } from '../../../emit/record.ts';
import { own } from '../../../own.ts';
import { callMintedAtRandom, idPath } from '../ids.ts';

/** A turn: one user or assistant record, its message fields and its ordered content blocks. */
export function emitTurn(record: UserRecord | AssistantRecord, ctx: RecordContext, toolUses: [string, Term][]): void {
  const { event } = ctx;
  // Stated on every turn as the card draws it (`?turn weave:role ?role`), beside its class's weave:turnRole.
  t(ctx, event, weave.role, str(record.type));
  if (record.type === 'assistant') {
    const { message } = record;
    if (message.model) t(ctx, event, weave.model, str(message.model));
    if (message.id) t(ctx, event, weave.messageId, str(message.id));
    if (record.requestId) t(ctx, event, weave.requestId, str(record.requestId));
    if (message.stop_reason) t(ctx, event, weave.stopReason, str(message.stop_reason));
    if (typeof message.stop_sequence === 'string') t(ctx, event, weave.stopSequence, str(message.stop_sequence));
    if (message.usage) emitUsage(message.usage, usageScope(message.id, record.requestId, ctx.session), ctx);
    if (typeof record.isApiErrorMessage === 'boolean') t(ctx, event, weave.isApiErrorMessage, bool(record.isApiErrorMessage));
    if (record.error !== undefined) t(ctx, event, weave.apiError, jsonLiteral(record.error));
  } else {
    if (record.toolUseResult !== undefined) {
      content(ctx, event, weave.toolUseResult, record.toolUseResult, {
        kind: 'toolUseResult',
        pointer: '/toolUseResult',
        conventional: true,
      });
      emitPersistedOutput(record.toolUseResult, ctx);
    }
    if (record.sourceToolAssistantUUID) {
      ref(ctx, event, weave.sourceToolAssistant, 'event', record.sourceToolAssistantUUID, weave.sourceToolAssistantId);
    }
    if (record.sourceToolUseID) t(ctx, event, weave.sourceToolUseId, str(record.sourceToolUseID));
    if (typeof record.isCompactSummary === 'boolean') t(ctx, event, weave.isCompactSummary, bool(record.isCompactSummary));
    if (typeof record.isVisibleInTranscriptOnly === 'boolean')
      t(ctx, event, weave.isVisibleInTranscriptOnly, bool(record.isVisibleInTranscriptOnly));
    if (record.permissionMode) t(ctx, event, weave.permissionMode, str(record.permissionMode));
  }
  // A record without a uuid names its blocks after its stream and line, as its Event: never `ContentBlock//0`, never two records' `L7`.
  emitBlocks(
    record.message.content,
    ctx,
    event,
    record.uuid ? idPath(record.uuid, ctx.session) : [instanceKey(event)],
    '/message/content',
    toolUses,
  );
}

/**
 * A message's content: a bare string is one text block at order 0; a list is its blocks in order.
 * `id` names the blocks (`ContentBlock/<id…>/<order>`), `pointer` is where the content sits.
 */
export function emitBlocks(
  contentValue: unknown,
  ctx: RecordContext,
  owner: Term,
  id: string[],
  pointer: string,
  toolUses: [string, Term][],
): void {
  if (typeof contentValue === 'string') {
    emitBlock({ type: 'text', text: contentValue }, ctx, owner, [...id, 0], pointer, toolUses, 'text', true);
  } else if (Array.isArray(contentValue)) {
    for (const [order, block] of contentValue.entries())
      emitBlock(block as ContentBlock, ctx, owner, [...id, order], `${pointer}/${order}`, toolUses, 'text');
  }
}

/**
 * A tool persisted its output to a side file (Claude Code 2.1.x, `<persisted-output>`): the
 * transcript keeps only its size and path, so the output's state is size_only.
 */
function emitPersistedOutput(result: unknown, ctx: RecordContext): void {
  if (!result || typeof result !== 'object' || Array.isArray(result)) return;
  const { persistedOutputSize: size, persistedOutputPath: path } = result as JsonObject;
  if (typeof size !== 'number' || !Number.isSafeInteger(size)) return;
  absent(ctx, ctx.event, weave.persistedOutput, 'size_only', { pointer: '/toolUseResult/persistedOutputSize' }, size);
  if (typeof path === 'string') t(ctx, ctx.event, weave.persistedOutputPath, str(path));
}

/**
 * The fragments of one call repeat its usage: a Usage is one node per call and usage, named by
 * what it says and described once; each fragment links to it. Its scope is the call's (see
 * src/model/calls.ts): the API's message id when the API minted it, so the copies of a call in
 * a resumed, forked or copied session name one usage and a sum over calls counts its tokens once;
 * else the session.
 */
function emitUsage(usage: Usage, scope: string[], ctx: RecordContext): void {
  const node = instanceIri(ctx.soul, 'Usage', ...scope, createHash('sha1').update(JSON.stringify(usage)).digest('hex').slice(0, 20));
  t(ctx, ctx.event, weave.hasUsage, node);
  if (!firstMention(ctx, node)) return;
  t(ctx, node, a, weave.Usage);
  for (const [key, predicate] of USAGE_COUNTS) {
    const n = usage[key];
    if (typeof n === 'number') t(ctx, node, predicate, int(n));
  }
  // The one-hour writes are billed at their own rate; a record without the split wrote 5-minute ones only.
  const oneHour = usage.cache_creation;
  if (oneHour && typeof oneHour === 'object' && !Array.isArray(oneHour) && typeof oneHour.ephemeral_1h_input_tokens === 'number')
    t(ctx, node, weave.cacheCreation1hInputTokens, int(oneHour.ephemeral_1h_input_tokens));
  t(ctx, node, weave.usageJson, jsonLiteral(usage));
}

/** A usage's scope: its call's message id when the API minted it and its request id, else the session. */
function usageScope(messageId: string | undefined, requestId: string | undefined, session: string): string[] {
  return callMintedAtRandom(messageId, requestId) ? [messageId] : [session];
}

const USAGE_COUNTS: [string, Term][] = [
  ['input_tokens', weave.inputTokens],
  ['output_tokens', weave.outputTokens],
  ['cache_creation_input_tokens', weave.cacheCreationInputTokens],
  ['cache_read_input_tokens', weave.cacheReadInputTokens],
];

/** The block classes whose superclass is a block class too (ontology/parts/spine.ttl). */
const BLOCK_SUPERCLASS: Record<string, WeaveTerm> = {
  redacted_thinking: 'ThinkingBlock',
  server_tool_use: 'ToolUseBlock',
  advisor_tool_result: 'ToolResultBlock',
};

const BLOCK_CLASS: Record<string, WeaveTerm> = {
  text: 'TextBlock',
  thinking: 'ThinkingBlock',
  redacted_thinking: 'RedactedThinkingBlock',
  tool_use: 'ToolUseBlock',
  server_tool_use: 'ServerToolUseBlock',
  tool_result: 'ToolResultBlock',
  advisor_tool_result: 'AdvisorToolResultBlock',
  image: 'ImageBlock',
  document: 'DocumentBlock',
  tool_reference: 'ToolReferenceBlock',
};

/**
 * A content block; `path` is its place (the owner's id, then its order at each level of nesting)
 * and `pointer` where it sits in the record. `textKind` is the policy kind of its text: `text` in
 * a message, `toolOutput` inside a tool result. `whole` marks a bare-string message, whose text is
 * the pointer itself.
 */
function emitBlock(
  block: ContentBlock,
  ctx: RecordContext,
  owner: Term,
  path: (string | number)[],
  pointer: string,
  toolUses: [string, Term][],
  textKind: ContentKind,
  whole = false,
): void {
  const node = instanceIri(ctx.soul, 'ContentBlock', ...path);
  const order = path[path.length - 1] as number;
  t(ctx, owner, weave.hasContentBlock, node);
  t(ctx, node, weave.blockOrder, int(order));
  t(ctx, node, a, weave.ContentBlock);
  if (typeof block !== 'object' || block === null || typeof block.type !== 'string') {
    // Not a block at all: keep it whole.
    t(ctx, node, weave.blockJson, jsonLiteral(block));
    return;
  }
  const known = own(BLOCK_FIELDS, block.type);
  const cls = own(BLOCK_CLASS, block.type);
  if (cls) t(ctx, node, a, weave[cls]);
  // Superclasses are stated too (no inference in the store): a redacted thinking block is a thinking block.
  const superclass = own(BLOCK_SUPERCLASS, block.type);
  if (superclass) t(ctx, node, a, weave[superclass]);
  if (!known) {
    t(ctx, node, weave.blockType, str(block.type));
    t(ctx, node, weave.blockJson, jsonLiteral(block));
    return;
  }
  const extra: JsonObject = Object.fromEntries(Object.entries(block).filter(([k]) => !known.includes(k)));
  const source = (block as ImageBlock).source as JsonObject | undefined;
  if ((block.type === 'image' || block.type === 'document') && source && typeof source === 'object') {
    // A media source's own unknown fields (a file id, say) are kept too.
    const rest = Object.fromEntries(Object.entries(source).filter(([k]) => !SOURCE_FIELDS.includes(k)));
    if (Object.keys(rest).length) extra.source = rest;
  }
  if (block.type === 'tool_use' || block.type === 'server_tool_use') {
    // Lowered into triples, so not kept twice: only what of it could not be read stays.
    const rest = emitCaller((block as ToolUseBlock).caller, ctx, node);
    if (rest !== undefined) extra.caller = rest;
  }
  if (Object.keys(extra).length) t(ctx, node, weave.extraJson, jsonLiteral(extra));
  const at = (field: string) => `${pointer}/${pointerToken(field)}`;
  // A message's own blocks sit where queries/stored-texts.rq expects them; nested ones do not.
  const conventional = pointer === `/message/content/${order}`;

  switch (block.type) {
    case 'text': {
      const text = (block as { text?: unknown }).text;
      if (typeof text === 'string')
        content(ctx, node, weave.text, text, {
          kind: textKind,
          pointer: whole ? pointer : at('text'),
          conventional: !whole && conventional,
        });
      break;
    }
    case 'thinking': {
      const b = block as { thinking?: unknown; signature?: unknown };
      // Claude Code 2.1.79+ writes thinking as "" beside its signature: the text was never written.
      if (b.thinking === '') absent(ctx, node, weave.text, 'unavailable', { pointer: at('thinking') }, 0);
      else if (typeof b.thinking === 'string')
        content(ctx, node, weave.text, b.thinking, { kind: 'thinking', pointer: at('thinking'), conventional });
      if (typeof b.signature === 'string')
        content(ctx, node, weave.signature, b.signature, { kind: 'signature', pointer: at('signature') });
      break;
    }
    case 'redacted_thinking': {
      const data = (block as { data?: unknown }).data;
      absent(ctx, node, weave.text, 'redacted', { pointer });
      if (typeof data === 'string') content(ctx, node, weave.redactedData, data, { kind: 'redacted', pointer: at('data') });
      break;
    }
    case 'tool_use':
    case 'server_tool_use': {
      const b = block as ToolUseBlock;
      if (typeof b.name === 'string') t(ctx, node, weave.toolName, str(b.name));
      if (typeof b.id === 'string') {
        t(ctx, node, weave.toolUseId, str(b.id));
        toolUses.push([b.id, node]);
      }
      if (b.input !== undefined) content(ctx, node, weave.toolInput, b.input, { kind: 'toolInput', pointer: at('input'), conventional });
      break;
    }
    case 'tool_result':
    case 'advisor_tool_result': {
      const b = block as ToolResultBlock;
      if (typeof b.tool_use_id === 'string') {
        // The card pairs a result with its use by tool_use_id: stated on both, beside the link.
        t(ctx, node, weave.toolUseId, str(b.tool_use_id));
        ref(ctx, node, weave.toolUseRef, 'toolUse', b.tool_use_id);
      }
      t(ctx, node, weave.toolIsError, bool(b.is_error === true));
      if (typeof b.content === 'string')
        content(ctx, node, weave.text, b.content, { kind: 'toolOutput', pointer: at('content'), conventional });
      else if (Array.isArray(b.content))
        for (const [i, inner] of b.content.entries())
          emitBlock(inner, ctx, node, [...path, i], `${at('content')}/${i}`, toolUses, 'toolOutput');
      else if (b.content !== undefined) t(ctx, node, weave.blockJson, jsonLiteral(b.content));
      break;
    }
    case 'image':
    case 'document':
      emitMedia(block as ImageBlock, ctx, node, at('source'));
      break;
    case 'tool_reference': {
      const name = (block as { tool_name?: unknown }).tool_name;
      if (typeof name === 'string') t(ctx, node, weave.toolName, str(name));
      break;
    }
  }
}

const SOURCE_FIELDS = ['type', 'media_type', 'url', 'text', 'data'];

/**
 * Who made a tool call (the card's ToolUseBlock `caller`): its type as weave:caller (`direct`, the
 * model itself; `code_execution_…`, a program the model ran in a server tool), and the tool use
 * that ran that program, by its `tool_id`, as weave:callerToolUse (the id where it names none in
 * the session). Gives back what of the caller it did not read, to be kept in extraJson.
 */
function emitCaller(caller: Json | undefined, ctx: RecordContext, node: Term): Json | undefined {
  if (caller === null || typeof caller !== 'object' || Array.isArray(caller)) return caller;
  const { type, tool_id: toolId, ...rest } = caller;
  if (typeof type === 'string') t(ctx, node, weave.caller, str(type));
  else if (type !== undefined) rest.type = type;
  if (typeof toolId === 'string') ref(ctx, node, weave.callerToolUse, 'toolUse', toolId, weave.callerToolUseId);
  else if (toolId !== undefined) rest.tool_id = toolId;
  return Object.keys(rest).length ? rest : undefined;
}

/**
 * Media: type, and the length and SHA-256 of the decoded bytes on the block itself (the join
 * surface with other graphs); the base64 payload is stored only when the policy keeps media.
 */
function emitMedia(block: ImageBlock, ctx: RecordContext, node: Term, pointer: string): void {
  const source = block.source;
  if (!source || typeof source !== 'object') return;
  if (typeof source.type === 'string') t(ctx, node, weave.sourceType, str(source.type));
  if (typeof source.media_type === 'string') t(ctx, node, weave.mediaType, str(source.media_type));
  if (typeof source.url === 'string') t(ctx, node, weave.sourceUrl, str(source.url));
  if (typeof source.text === 'string') content(ctx, node, weave.text, source.text, { kind: 'text', pointer: `${pointer}/text` });
  if (typeof source.data === 'string') {
    const bytes = Buffer.from(source.data, 'base64');
    t(ctx, node, weave.byteLength, int(bytes.length));
    t(ctx, node, weave.sha256, str(createHash('sha256').update(bytes).digest('hex')));
    content(ctx, node, weave.mediaData, source.data, { kind: 'media', pointer: `${pointer}/data` });
  }
}
