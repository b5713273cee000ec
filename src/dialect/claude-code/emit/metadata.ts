import type { JsonObject } from '../records.ts';
import { RECORD_FIELDS } from '../fields.ts';
import { jsonLiteral } from '../../../rdf/json.ts';
import { bool, dateTime, int, num, str, type Term } from '../../../rdf/terms.ts';
import { a, weave } from '../../../rdf/vocab.ts';
import { fileNode } from './attachment.ts';
import { createHash } from 'node:crypto';
import { content, Fields, firstMention, keepRest, ref, t, type RecordContext } from '../../../emit/record.ts';
import { instanceIri } from '../../../rdf/iri.ts';
import { pick } from './system.ts';
import { own } from '../../../own.ts';
import { pointerToken } from '../../../emit/content.ts';

/**
 * Metadata records (no uuid, keyed by session, rewritten many times): each record is kept as an
 * Event with its fields typed. What each kind's fields mean and how they map is the table below;
 * a kind not in it keeps all its fields in extraJson.
 */

/** `text`: a text of the transcript (a summary, a title, a prompt's copy), stored under the content policy's `text`. */
type FieldType = 'string' | 'text' | 'integer' | 'number' | 'boolean' | 'dateTime' | 'json';
interface FieldMap {
  key: string;
  predicate: Term;
  type: FieldType;
}
const field = (key: string, predicate: Term, type: FieldType = 'string'): FieldMap => ({ key, predicate, type });

const METADATA_FIELDS: Record<string, FieldMap[]> = {
  summary: [field('summary', weave.summary, 'text')],
  'custom-title': [field('customTitle', weave.customTitle, 'text')],
  'agent-name': [field('agentName', weave.agentName, 'text')],
  'ai-title': [field('aiTitle', weave.aiTitle, 'text')],
  'last-prompt': [field('lastPrompt', weave.lastPrompt, 'text')],
  'permission-mode': [field('permissionMode', weave.permissionMode)],
  mode: [field('mode', weave.mode)],
  'agent-setting': [field('agentSetting', weave.agentSetting)],
  'pr-link': [field('prNumber', weave.prNumber, 'integer'), field('prUrl', weave.prUrl), field('prRepository', weave.prRepository)],
  'queue-operation': [field('operation', weave.queueOperation), field('reason', weave.queueReason)],
  'file-history-snapshot': [field('messageId', weave.snapshotMessageId), field('isSnapshotUpdate', weave.isSnapshotUpdate, 'boolean')],
  'file-history-delta': [
    field('messageId', weave.snapshotMessageId),
    field('snapshotMessageId', weave.baseSnapshotMessageId),
    field('backup', weave.backupJson, 'json'),
  ],
  'bridge-session': [field('bridgeSessionId', weave.bridgeSessionId), field('lastSequenceNum', weave.lastSequenceNum, 'integer')],
  'cost-state': [
    field('totalCostUSD', weave.totalCostUsd, 'number'),
    field('totalAPIDuration', weave.totalApiDurationMs, 'number'),
    field('totalAPIDurationWithoutRetries', weave.totalApiDurationWithoutRetriesMs, 'number'),
    field('totalToolDuration', weave.totalToolDurationMs, 'number'),
    field('totalDuration', weave.totalDurationMs, 'number'),
    field('totalLinesAdded', weave.linesAdded, 'integer'),
    field('totalLinesRemoved', weave.linesRemoved, 'integer'),
    field('hasUnknownModelCost', weave.hasUnknownModelCost, 'boolean'),
    field('modelUsage', weave.modelUsageJson, 'json'),
  ],
};

/** The fields of `worktree-state`'s `worktreeSession`. */
const WORKTREE_FIELDS: FieldMap[] = [
  field('worktreePath', weave.worktreePath),
  field('worktreeName', weave.worktreeName),
  field('worktreeBranch', weave.worktreeBranch),
  field('originalCwd', weave.originalCwd),
  field('originalBranch', weave.originalBranch),
  field('originalHeadCommit', weave.originalHeadCommit),
];

export function emitMetadata(record: JsonObject, ctx: RecordContext): void {
  const { event } = ctx;
  const type = record.type as string;
  const f = new Fields(pick(record, own(RECORD_FIELDS, type)));
  for (const map of own(METADATA_FIELDS, type) ?? []) typed(ctx, f, event, map);
  const leaf = f.string('leafUuid');
  if (leaf) {
    ref(ctx, event, weave.leafEvent, 'event', leaf, weave.leafEventId);
  }
  if (type === 'queue-operation') {
    const text = f.string('content');
    if (text !== undefined) content(ctx, event, weave.text, text, { kind: 'text', pointer: '/content' });
  }
  if (type === 'file-history-snapshot') emitSnapshot(f, ctx);
  if (type === 'file-history-delta') {
    // A delta is a kind of snapshot; the superclass is stated as the store does no inference.
    t(ctx, event, a, weave.FileHistorySnapshot);
    const path = f.string('trackingPath');
    if (path) t(ctx, event, weave.tracksFile, fileNode(ctx, path));
  }
  if (type === 'worktree-state') {
    const session = f.object('worktreeSession');
    if (session) {
      const g = new Fields(session);
      for (const map of WORKTREE_FIELDS) typed(ctx, g, event, map);
      keepRest(ctx, g.rest(), 'worktreeSession');
    }
  }
  keepRest(ctx, f.rest());
}

function typed(ctx: RecordContext, f: Fields, subject: Term, { key, predicate, type }: FieldMap): void {
  switch (type) {
    case 'string': {
      const v = f.string(key);
      if (v !== undefined) t(ctx, subject, predicate, str(v));
      break;
    }
    case 'text': {
      const v = f.string(key);
      // Where stored-texts.rq looks for it: kept whole, it needs no Content node.
      if (v !== undefined) content(ctx, subject, predicate, v, { kind: 'text', pointer: `/${pointerToken(key)}`, conventional: true });
      break;
    }
    case 'integer': {
      const v = f.integer(key);
      if (v !== undefined) t(ctx, subject, predicate, int(v));
      break;
    }
    case 'number': {
      const v = f.number(key);
      if (v !== undefined) t(ctx, subject, predicate, num(v));
      break;
    }
    case 'boolean': {
      const v = f.boolean(key);
      if (v !== undefined) t(ctx, subject, predicate, bool(v));
      break;
    }
    case 'dateTime': {
      const v = f.string(key);
      if (v !== undefined) t(ctx, subject, predicate, dateTime(v));
      break;
    }
    case 'json': {
      const v = f.json(key);
      if (v !== undefined) t(ctx, subject, predicate, jsonLiteral(v));
      break;
    }
  }
}

/**
 * The editor's undo state: every tracked file is a File node, and each file's backup (version,
 * backup file, time) a node of its own. What the snapshot holds beyond that stays in extraJson.
 */
function emitSnapshot(f: Fields, ctx: RecordContext): void {
  const { event } = ctx;
  const snapshot = f.object('snapshot');
  if (!snapshot) return;
  const s = new Fields(structuredClone(snapshot));
  const messageId = s.string('messageId');
  if (messageId) t(ctx, event, weave.snapshotOfMessageId, str(messageId));
  const time = s.string('timestamp');
  if (time) t(ctx, event, weave.snapshotTime, dateTime(time));
  const backups = s.object('trackedFileBackups');
  const unread: JsonObject = {};
  for (const [path, info] of Object.entries(backups ?? {})) {
    const file = fileNode(ctx, path);
    t(ctx, event, weave.tracksFile, file);
    // Every snapshot lists each tracked file again: a backup is one node per session, named by what it
    // says, and described once; what of it could not be read stays in each snapshot's extraJson.
    const node = instanceIri(
      ctx.soul,
      'FileBackup',
      ctx.session,
      createHash('sha1')
        .update(`${path}\n${JSON.stringify(info)}`)
        .digest('hex')
        .slice(0, 20),
    );
    t(ctx, event, weave.hasFileBackup, node);
    const describe = firstMention(ctx, node);
    const say = (p: Term, o: Term) => describe && t(ctx, node, p, o);
    say(a, weave.FileBackup);
    say(weave.file, file);
    if (!info || typeof info !== 'object' || Array.isArray(info)) {
      unread[path] = info;
      continue;
    }
    const b = new Fields(info);
    const name = b.raw.backupFileName;
    // null: the file did not exist before the turn.
    if (name === null) {
      b.consume('backupFileName');
      say(weave.fileExisted, bool(false));
    } else {
      const backupName = b.string('backupFileName');
      if (backupName) say(weave.backupFileName, str(backupName));
    }
    const version = b.integer('version');
    if (version !== undefined) say(weave.backupVersion, int(version));
    const at = b.string('backupTime');
    if (at) say(weave.backupTime, dateTime(at));
    const rest = b.rest();
    if (Object.keys(rest).length) unread[path] = rest;
  }
  const rest = s.rest();
  if (Object.keys(unread).length) rest.trackedFileBackups = unread;
  keepRest(ctx, rest, 'snapshot');
}
