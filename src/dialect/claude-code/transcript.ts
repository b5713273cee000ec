import { readFile } from 'node:fs/promises';
import { str, type Term } from '../../rdf/terms.ts';
import { weave } from '../../rdf/vocab.ts';
import type { StreamFacts } from '../../model/facts.ts';
import type { SideText, TranscriptOpening, Unreadable } from '../dialect.ts';
import type { ClaudeTranscriptSource } from './discover.ts';
import { tooDeep } from '../../acquire/json-depth.ts';
import { isObject, jsonError } from './read.ts';
import type { JsonObject } from './records.ts';

/**
 * What Claude Code says about a transcript file beyond its lines: the workflow run it was filed
 * under, and its `.meta.json` sidecar (2.1.2+), which names the agent's type, the description it
 * was launched with and the tool use that launched it. The sidecar is kept whole as JSON too;
 * its texts are stored under the content policy (as `toolInput`), like the call's input.
 */
export async function openTranscript(
  source: ClaudeTranscriptSource,
  onProblem: (problem: Unreadable) => void,
  stored: (text: string) => string = (text) => text,
): Promise<TranscriptOpening> {
  const about: [Term, Term][] = [];
  const sideTexts: SideText[] = [];
  const stream: StreamFacts = {};
  if (source.workflowRunId) about.push([weave.workflowRunId, str(source.workflowRunId)]);
  const meta = source.metaPath ? await readMeta(source.metaPath, onProblem, stored) : undefined;
  if (meta) {
    if (typeof meta.agentType === 'string') about.push([weave.agentType, str(meta.agentType)]);
    // It restates the launching call's input (its description, its agent type): a toolInput text.
    if (typeof meta.description === 'string')
      sideTexts.push({ property: weave.agentDescription, value: meta.description, kind: 'toolInput', pointer: '/description' });
    if (typeof meta.toolUseId === 'string') about.push([weave.launchingToolUseId, str(meta.toolUseId)]);
    sideTexts.push({ property: weave.agentMetaJson, value: meta, kind: 'toolInput', pointer: '' });
    // The call that started this child, when the runtime wrote one.
    if (typeof meta.toolUseId === 'string' && meta.toolUseId) stream.launchedBy = meta.toolUseId;
  }
  return { about, sideTexts, stream };
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
