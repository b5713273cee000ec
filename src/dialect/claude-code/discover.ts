import { readdir, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { homedir } from 'node:os';
import { exists, walkFiles } from '../../acquire/files.ts';
import { readLines } from '../../acquire/lines.ts';
import type { FoundSession, TranscriptSource, Unreadable } from '../dialect.ts';
import { readJournal } from './journal.ts';

/** Where a transcript was filed: each Claude Code era used a different layout. */
type TranscriptLayout =
  | 'session' //          <project>/<sessionId>.jsonl
  | 'beside' //           <project>/agent-<id>.jsonl (2.0.x)
  | 'subagents' //        <project>/<sessionId>/subagents/agent-<id>.jsonl (2.1.2+)
  | 'workflow'; //        <project>/<sessionId>/subagents/workflows/wf_<runId>/agent-<id>.jsonl

export interface ClaudeTranscriptSource extends TranscriptSource {
  layout: TranscriptLayout;
  /** The workflow run a workflow agent belongs to (`wf_<runId>`). */
  workflowRunId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;
const WORKFLOW_DIR = /^wf_(.+)$/;
/** A compaction's summariser: no call starts it; it produces the compaction's summary. */
const SUMMARISER = 'acompact-';
/** Persisted tool outputs: never transcripts. */
const SKIP = new Set(['tool-results']);
const isTranscript = (name: string) => name.endsWith('.jsonl');

/** `$CLAUDE_CONFIG_DIR/projects`, else `~/.claude/projects`. */
export function defaultProjectsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.CLAUDE_CONFIG_DIR ? join(env.CLAUDE_CONFIG_DIR, 'projects') : join(homedir(), '.claude', 'projects');
}

/**
 * Finds the sessions under each path: a projects root, a project folder, a session file,
 * or any tree holding transcripts (`.jsonl`). Sub-agent files are attached to their session in
 * all three layouts Claude Code has used; files no session claims become sessions of their own.
 * A file named by itself is read when it is a `.jsonl`; any other is another runtime's.
 */
export async function discoverSessions(
  paths: string[],
  onProblem: (problem: Unreadable) => void = () => {},
): Promise<FoundSession<ClaudeTranscriptSource>[]> {
  const files = new Set<string>();
  for (const p of paths) {
    const abs = resolve(p);
    const info = await stat(abs);
    if (info.isDirectory()) for (const f of await walkFiles(abs, isTranscript, SKIP, onProblem)) files.add(f);
    else if (isTranscript(abs)) {
      files.add(abs);
      // A single session file brings its side files along.
      const companion = join(dirname(abs), basename(abs, '.jsonl'));
      if (await exists(companion)) for (const f of await walkFiles(companion, isTranscript, SKIP, onProblem)) files.add(f);
      for (const f of await readdir(dirname(abs))) if (AGENT_FILE.test(f)) files.add(join(dirname(abs), f));
    }
  }
  return groupSessions([...files].sort(), onProblem);
}

/** Reads the first `sessionId` a file's records state (peeking at most 50 lines). */
async function peekSessionId(path: string): Promise<string | undefined> {
  let seen = 0;
  try {
    for await (const line of readLines(path)) {
      if (++seen > 50) break;
      try {
        const rec = JSON.parse(line.text);
        if (rec && typeof rec.sessionId === 'string' && rec.sessionId) return rec.sessionId;
      } catch {
        /* a malformed line is reported by read, not here */
      }
    }
  } catch {
    /* a file that cannot be read is reported when it is read */
  }
  return undefined;
}

async function groupSessions(files: string[], onProblem: (problem: Unreadable) => void): Promise<FoundSession<ClaudeTranscriptSource>[]> {
  // Sessions by folder and the id the data gives them: copies of one session in two folders
  // stay two sessions (with two graphs), and side files join the copy in their own folder.
  const groups = new Map<string, FoundSession<ClaudeTranscriptSource>>();
  const taken = new Set<string>();
  const byMainPath = new Map<string, FoundSession<ClaudeTranscriptSource>>();
  // Side files name their owner by folder (<project>/<owner>/subagents/…) or, beside it, by content.
  const side: { path: string; source: ClaudeTranscriptSource; owner?: string; projectDir: string }[] = [];
  const journals: { path: string; owner: string; projectDir: string }[] = [];

  const session = (dataId: string, projectDir: string, key = `${projectDir}\n${dataId}`): FoundSession<ClaudeTranscriptSource> => {
    let s = groups.get(key);
    if (!s) {
      const sessionId = taken.has(dataId) ? `${dataId}~${shortHash(key)}` : dataId;
      taken.add(sessionId);
      groups.set(key, (s = { sessionId, subagents: [], journals: [], batches: [], projectDir }));
    }
    return s;
  };

  for (const path of files) {
    const name = basename(path);
    const parts = path.split(sep);
    const sub = parts.lastIndexOf('subagents');
    if (sub > 0) {
      // <project>/<sessionDir>/subagents/[workflows/wf_<run>/]file
      const owner = parts[sub - 1];
      const projectDir = parts.slice(0, sub - 1).join(sep);
      const wf = parts
        .slice(sub + 1, -1)
        .map((p) => WORKFLOW_DIR.exec(p))
        .find(Boolean);
      if (name === 'journal.jsonl') journals.push({ path, owner, projectDir });
      else
        side.push({
          path,
          owner,
          projectDir,
          source: child(path, wf ? 'workflow' : 'subagents', AGENT_FILE.exec(name)?.[1], wf ?? undefined),
        });
      continue;
    }
    const agent = AGENT_FILE.exec(name);
    if (agent) {
      side.push({ path, projectDir: dirname(path), source: child(path, 'beside', agent[1]) });
      continue;
    }
    const stem = basename(name, '.jsonl');
    const id = UUID.test(stem) ? stem : ((await peekSessionId(path)) ?? stem);
    let s = session(id, dirname(path));
    // Two files of one folder claiming one session id are two sessions, not one.
    if (s.main) s = session(id, dirname(path), path);
    s.main = { path, layout: 'session' };
    byMainPath.set(join(dirname(path), stem), s);
  }

  for (const { path, source, owner, projectDir } of side) {
    const meta = path.replace(/\.jsonl$/, '.meta.json');
    if (await exists(meta)) source.metaPath = meta;
    const ownerSession = owner
      ? (byMainPath.get(join(projectDir, owner)) ?? session(owner, projectDir))
      : await besideOwner(path, projectDir);
    ownerSession.subagents.push(source);
  }
  for (const { owner, projectDir, path } of journals) {
    const s = byMainPath.get(join(projectDir, owner)) ?? session(owner, projectDir);
    try {
      s.batches.push(await readJournal(path));
      s.journals.push(path);
    } catch (e) {
      onProblem({ path, lineNo: 0, message: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); skipped` });
    }
  }
  return [...groups.values()].sort((a, b) => a.sessionId.localeCompare(b.sessionId));

  async function besideOwner(path: string, projectDir: string): Promise<FoundSession<ClaudeTranscriptSource>> {
    // Legacy agent files name their parent session only inside their records.
    return session((await peekSessionId(path)) ?? basename(path, '.jsonl'), projectDir);
  }
}

/** A sub-agent's file: its agent id, the workflow run (`wf_<runId>` folder) it was started in, its role. */
function child(path: string, layout: TranscriptLayout, agentId: string | undefined, wf?: RegExpExecArray): ClaudeTranscriptSource {
  const source: ClaudeTranscriptSource = { path, layout, agentId, workflowRunId: wf?.[1] };
  if (wf) source.batch = wf[0];
  if (agentId?.startsWith(SUMMARISER)) source.role = 'summariser';
  return source;
}

function shortHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, '0');
}
