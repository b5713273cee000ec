import { readFile } from 'node:fs/promises';
import { jsonLiteral } from '../../rdf/json.ts';
import { str, type Term } from '../../rdf/terms.ts';
import { weave } from '../../rdf/vocab.ts';
import type { StreamFacts } from '../../model/facts.ts';
import type { TranscriptOpening, Unreadable } from '../dialect.ts';
import type { ClaudeTranscriptSource } from './discover.ts';
import { tooDeep } from '../../acquire/json-depth.ts';
import { isObject, jsonError } from './read.ts';
import type { JsonObject } from './records.ts';

/**
 * What Claude Code says about a transcript file beyond its lines: the workflow run it was filed
 * under, and its `.meta.json` sidecar (2.1.2+), which names the agent's type, the description it
 * was launched with and the tool use that launched it. The sidecar is kept whole as JSON too.
 */
export async function openTranscript(
  source: ClaudeTranscriptSource,
  onProblem: (problem: Unreadable) => void,
  stored: (text: string) => string = (text) => text,
): Promise<TranscriptOpening> {
  const about: [Term, Term][] = [];
  const stream: StreamFacts = {};
  if (source.workflowRunId) about.push([weave.workflowRunId, str(source.workflowRunId)]);
  const meta = source.metaPath ? await readMeta(source.metaPath, onProblem, stored) : undefined;
  if (meta) {
    if (typeof meta.agentType === 'string') about.push([weave.agentType, str(meta.agentType)]);
    if (typeof meta.description === 'string') about.push([weave.agentDescription, str(meta.description)]);
    if (typeof meta.toolUseId === 'string') about.push([weave.launchingToolUseId, str(meta.toolUseId)]);
    about.push([weave.agentMetaJson, jsonLiteral(meta)]);
    // The call that started this child, when the runtime wrote one.
    if (typeof meta.toolUseId === 'string' && meta.toolUseId) stream.launchedBy = meta.toolUseId;
  }
  return { about, stream };
}

async function readMeta(
  path: string,
  onProblem: (problem: Unreadable) => void,
  stored: (text: string) => string,
): Promise<JsonObject | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    onProblem({ path, lineNo: 0, message: `cannot be read (${(e as NodeJS.ErrnoException).code ?? 'error'}); not used` });
    return undefined;
  }
  text = text.replace(/^\uFEFF/, '');
  const deep = tooDeep(text);
  if (deep) {
    onProblem({ path, lineNo: 1, message: deep });
    return undefined;
  }
  try {
    const json = JSON.parse(stored(text));
    return isObject(json) ? json : undefined;
  } catch (e) {
    onProblem({ path, lineNo: 1, message: jsonError(e as Error) });
    return undefined;
  }
}
