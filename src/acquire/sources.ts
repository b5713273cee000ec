/** What acquire hands to read: a session's transcript files, found on disk. */

/** Where a sub-agent transcript was filed: each Claude Code era used a different layout. */
export type TranscriptLayout =
  | 'session' //          <project>/<sessionId>.jsonl
  | 'beside' //           <project>/agent-<id>.jsonl (2.0.x)
  | 'subagents' //        <project>/<sessionId>/subagents/agent-<id>.jsonl (2.1.2+)
  | 'workflow'; //        <project>/<sessionId>/subagents/workflows/wf_<runId>/agent-<id>.jsonl

export interface TranscriptSource {
  path: string;
  layout: TranscriptLayout;
  /** The agent id from the file name (`agent-<id>.jsonl`); absent for the session file. */
  agentId?: string;
  /** The workflow run a workflow agent belongs to (`wf_<runId>`). */
  workflowRunId?: string;
  /** The `.meta.json` sidecar, when one sits beside the file. */
  metaPath?: string;
}

export interface SessionSource {
  /** The session id: the main file's name where it is a UUID, else the records' own sessionId. */
  sessionId: string;
  /** The session's own transcript; absent when only sub-agent files survive. */
  main?: TranscriptSource;
  subagents: TranscriptSource[];
  /** Workflow `journal.jsonl` files of the session's workflow runs. */
  journals: string[];
  /** The project folder the session was found in. */
  projectDir: string;
}

/** All transcript files of a session, main first. */
export function transcriptsOf(session: SessionSource): TranscriptSource[] {
  return session.main ? [session.main, ...session.subagents] : [...session.subagents];
}
