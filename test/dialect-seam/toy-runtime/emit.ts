import type { RecordOut, Where } from '../../../src/emit/contract.ts';
import { DEFAULT_POLICY } from '../../../src/emit/content.ts';
import { content, ref, t, type RecordContext } from '../../../src/emit/record.ts';
import { instanceIri } from '../../../src/rdf/iri.ts';
import { bool, dateTime, int, str } from '../../../src/rdf/terms.ts';
import { a, weave } from '../../../src/rdf/vocab.ts';
import type { ToyRecord } from './read.ts';

/**
 * A toy record in the spine vocabulary (ontology/parts/spine.ttl), which is all readers and the
 * server read back: every record is a turn with one content block, named as the model names
 * blocks (`ContentBlock/<id>/0`).
 */
export function emitRecord({ record }: { record: ToyRecord }, where: Where & { streamKey: string }): RecordOut {
  const event = instanceIri(where.soul, 'Turn', record.id);
  const out: RecordOut = { triples: [], references: [], event, toolUses: [] };
  const ctx: RecordContext = {
    soul: where.soul,
    session: where.session ?? '',
    event,
    lineNo: where.lineNo,
    policy: where.content ?? DEFAULT_POLICY,
    triples: out.triples,
    references: out.references,
    leftover: {},
    described: where.described ?? new Set(),
  };
  const asks = record.verb === 'ask' || record.verb === 'result';
  t(ctx, where.transcript, weave.hasEvent, event);
  t(ctx, event, a, weave.Event);
  t(ctx, event, a, weave.Turn);
  t(ctx, event, a, asks ? weave.UserTurn : weave.AssistantTurn);
  t(ctx, event, weave.recordType, str(record.verb));
  t(ctx, event, weave.role, str(asks ? 'user' : 'assistant'));
  t(ctx, event, weave.sourceLine, int(where.lineNo));
  t(ctx, event, weave.sourceOffset, int(where.offset));
  t(ctx, event, weave.eventId, str(record.id));
  t(ctx, event, weave.timestamp, dateTime(record.time));
  if (record.parent) {
    ref(ctx, event, weave.parentEvent, 'event', record.parent);
    t(ctx, event, weave.parentEventId, str(record.parent));
  }
  if (record.reply) t(ctx, event, weave.messageId, str(record.reply));

  const block = instanceIri(where.soul, 'ContentBlock', record.id, 0);
  t(ctx, event, weave.hasContentBlock, block);
  t(ctx, block, weave.blockOrder, int(0));
  t(ctx, block, a, weave.ContentBlock);
  if (record.verb === 'call') {
    t(ctx, block, a, weave.ToolUseBlock);
    t(ctx, block, weave.toolName, str(record.tool!));
    t(ctx, block, weave.toolUseId, str(record.call!));
    content(ctx, block, weave.toolInput, record.input, { kind: 'toolInput', pointer: '/input' });
    out.toolUses.push([record.call!, block]);
  } else if (record.verb === 'result') {
    t(ctx, block, a, weave.ToolResultBlock);
    t(ctx, block, weave.toolUseId, str(record.call!));
    ref(ctx, block, weave.toolUseRef, 'toolUse', record.call!);
    t(ctx, block, weave.toolIsError, bool(record.failed === true));
    content(ctx, block, weave.text, record.text, { kind: 'toolOutput', pointer: '/text' });
  } else {
    t(ctx, block, a, weave.TextBlock);
    content(ctx, block, weave.text, record.text, { kind: 'text', pointer: '/text' });
  }
  return out;
}
