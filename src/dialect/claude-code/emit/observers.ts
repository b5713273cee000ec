import type { SourceLine } from '../../../acquire/lines.ts';
import type { JsonObject, ReadRecord, UserRecord } from '../records.ts';
import { anyText, promptText, titleOf } from '../prompt.ts';
import { DEFAULT_POLICY, type ContentPolicy } from '../../../emit/content.ts';
import { localName } from '../../../emit/content.ts';
import type { Resolve } from '../../../emit/contract.ts';
import type { RecordObserver, TranscriptContext } from '../../dialect.ts';
import { str, type Term, type Triple } from '../../../rdf/terms.ts';
import { a, prov, weave } from '../../../rdf/vocab.ts';
import { related } from '../../../rdf/iri.ts';
import { redact } from '../../../readers/redact.ts';

/**
 * What the dialect can only say with a whole session in hand: the last-written titles and modes
 * on each transcript, the summary turn each compaction generated, and the links whose target is
 * in no record of the session (left for the pass across sessions, see src/link/).
 */
export function dialectObservers(content: ContentPolicy = DEFAULT_POLICY): RecordObserver<ReadRecord>[] {
  return [new TranscriptMetadata(content), new SessionLinks()];
}

/** Kept in the session's state file between appends: every text secrets redacted (SECURITY.md). */
interface LastWritten {
  customTitle?: string;
  aiTitle?: string;
  agentName?: string;
  permissionMode?: string;
  prUrls: string[];
  /** Legacy summaries: a title for the session only when their leaf is one of its records. */
  summaries: { text: string; leaf?: string }[];
  /** The first prompt a person typed in this transcript, secrets redacted (it is kept in the session's state file). */
  prompt?: string;
  /** Else its first text of any kind, tags taken out, secrets redacted. */
  text?: string;
}

/**
 * Metadata records are rewritten many times and read last-wins: the last title, AI title, agent
 * name and permission mode, and every PR linked, go on the transcript the records sit in, plus
 * `weave:title`: the user's title, else the AI's, else the last summary of one of its own leaves,
 * else the first prompt a person typed, else the first text of any kind, shortened (see
 * prompt.ts), its secrets redacted — unless the content policy
 * keeps no message text, when a title of any of these would carry what the graph was told not to.
 */
class TranscriptMetadata implements RecordObserver<ReadRecord> {
  private readonly transcripts = new Map<Term, LastWritten>();

  constructor(private readonly content: ContentPolicy = DEFAULT_POLICY) {}
  save(): unknown {
    return [...this.transcripts];
  }

  load(state: unknown): void {
    for (const [node, last] of state as [Term, LastWritten][]) this.transcripts.set(node, last);
  }

  record(transcript: TranscriptContext, _line: SourceLine, { record }: ReadRecord): void {
    const r = record as unknown as JsonObject;
    let last = this.transcripts.get(transcript.node);
    const state = () => {
      if (!last) this.transcripts.set(transcript.node, (last = { prUrls: [], summaries: [] }));
      return last;
    };
    // What is kept here is written to the session's state file and the derived graph, which hold no secret.
    const text = (key: string) => (typeof r[key] === 'string' ? redact(r[key] as string) : undefined);
    // A title, summary or agent name is a `text` for the policy: carried only when it keeps texts, cut as the graph cuts it.
    const keptText = (key: string) => {
      const value = this.content.modes.text === 'keep' ? text(key) : undefined;
      return value === undefined ? undefined : cutToBytes(value, this.content.textLimit);
    };
    if (this.content.modes.text === 'keep' && last?.prompt === undefined) {
      const prompt = record.type === 'user' ? promptText(record as UserRecord) : undefined;
      if (prompt !== undefined) state().prompt = cutToBytes(redact(prompt), this.content.textLimit);
      else if (last?.text === undefined) {
        const any = anyText(record as { type?: string; message?: { content?: unknown } });
        if (any !== undefined) state().text = cutToBytes(redact(any), this.content.textLimit);
      }
    }
    switch (record.type) {
      case 'custom-title':
        if (keptText('customTitle') !== undefined) state().customTitle = keptText('customTitle');
        break;
      case 'ai-title':
        if (keptText('aiTitle') !== undefined) state().aiTitle = keptText('aiTitle');
        break;
      case 'agent-name':
        if (keptText('agentName') !== undefined) state().agentName = keptText('agentName');
        break;
      case 'permission-mode':
      case 'user':
        if (text('permissionMode')) state().permissionMode = text('permissionMode');
        break;
      case 'pr-link': {
        const url = text('prUrl');
        if (url && !state().prUrls.includes(url)) state().prUrls.push(url);
        break;
      }
      case 'summary':
        if (keptText('summary') !== undefined) state().summaries.push({ text: keptText('summary')!, leaf: text('leafUuid') });
        break;
    }
  }

  *finish(resolve: Resolve): Iterable<Triple> {
    for (const [node, last] of this.transcripts) {
      if (last.customTitle !== undefined) yield { s: node, p: weave.customTitle, o: str(last.customTitle) };
      if (last.aiTitle !== undefined) yield { s: node, p: weave.aiTitle, o: str(last.aiTitle) };
      if (last.agentName !== undefined) yield { s: node, p: weave.agentName, o: str(last.agentName) };
      if (last.permissionMode !== undefined) yield { s: node, p: weave.permissionMode, o: str(last.permissionMode) };
      for (const url of last.prUrls) yield { s: node, p: weave.prUrl, o: str(url) };
      const own = last.summaries.filter((s) => s.leaf && resolve('event', s.leaf)).pop();
      const derived = last.prompt ?? last.text;
      const title = last.customTitle ?? last.aiTitle ?? own?.text ?? (derived === undefined ? undefined : titleOf(derived));
      // Each part was redacted as it was read: the title is copied beyond the graph (search results, listings).
      if (title !== undefined) yield { s: node, p: weave.title, o: str(title) };
    }
  }
}

/** A text as the graph would hold it under a limit of `bytes` UTF-8 bytes (0: no limit). */
function cutToBytes(text: string, bytes: number): string {
  if (!bytes || Buffer.byteLength(text) <= bytes) return text;
  return Buffer.from(text)
    .subarray(0, bytes)
    .toString()
    .replace(/\uFFFD$/, '');
}

/**
 * Links that need the whole session: a compaction generated the summary turn whose parent is
 * its boundary; a compaction's tail, or a summary's leaf, that is in no record of the session is
 * recorded as a CrossSessionReference, for the pass after ingest to find in another session.
 */
class SessionLinks implements RecordObserver<ReadRecord> {
  /** Boundary uuid → its Compaction. */
  private readonly compactions = new Map<string, Term>();
  private readonly summaries: { turn: Term; boundary: string }[] = [];
  private readonly wanted: { subject: Term; predicate: Term; id: string }[] = [];

  save(): unknown {
    return { compactions: [...this.compactions], summaries: this.summaries, wanted: this.wanted };
  }

  load(state: unknown): void {
    const saved = state as { compactions: [string, Term][]; summaries: SessionLinks['summaries']; wanted: SessionLinks['wanted'] };
    for (const [uuid, compaction] of saved.compactions) this.compactions.set(uuid, compaction);
    this.summaries.push(...saved.summaries);
    this.wanted.push(...saved.wanted);
  }

  record(_transcript: TranscriptContext, _line: SourceLine, { record }: ReadRecord, event: Term): void {
    const r = record as unknown as JsonObject;
    if (record.type === 'system' && (r.subtype === 'compact_boundary' || r.subtype === 'microcompact_boundary')) {
      const compaction = related(event, 'Compaction');
      if (record.uuid) this.compactions.set(record.uuid, compaction);
      const tail = r.subtype === 'compact_boundary' ? record.logicalParentUuid : record.parentUuid;
      if (typeof tail === 'string' && tail) this.wanted.push({ subject: compaction, predicate: prov.used, id: tail });
    }
    if (record.type === 'user' && r.isCompactSummary === true && record.parentUuid)
      this.summaries.push({ turn: event, boundary: record.parentUuid });
    if ((record.type === 'summary' || record.type === 'last-prompt') && typeof r.leafUuid === 'string' && r.leafUuid)
      this.wanted.push({ subject: event, predicate: weave.leafEvent, id: r.leafUuid });
  }

  *finish(resolve: Resolve): Iterable<Triple> {
    for (const { turn, boundary } of this.summaries) {
      const compaction = this.compactions.get(boundary);
      if (compaction) yield { s: compaction, p: prov.generated, o: turn };
    }
    for (const { subject, predicate, id } of this.wanted) {
      if (resolve('event', id)) continue;
      const node = related(subject, 'CrossSessionReference', localName(predicate));
      yield { s: node, p: a, o: weave.CrossSessionReference };
      yield { s: node, p: weave.referenceFrom, o: subject };
      yield { s: node, p: weave.referenceProperty, o: predicate };
      yield { s: node, p: weave.referenceTargetId, o: str(id) };
    }
  }
}
