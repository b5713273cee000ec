import { readFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { BatchJournal } from '../../model/facts.ts';
import { tooDeep } from '../../acquire/json-depth.ts';
import type { Json } from './records.ts';

/**
 * A workflow run's `journal.jsonl` (in `subagents/workflows/wf_<runId>/`): a line per child the
 * run started, and one per result a child returned. Read at discovery, so the model gets what it
 * says as data; a line that does not parse is skipped.
 */
export async function readJournal(path: string): Promise<BatchJournal> {
  const journal: BatchJournal = { batch: basename(dirname(path)), started: [], results: new Map() };
  for (const line of (await readFile(path, 'utf8')).split('\n')) {
    // A line nested too deep to walk is skipped like one that does not parse.
    if (!line.trim() || tooDeep(line)) continue;
    let entry: { type?: unknown; agentId?: unknown; result?: Json };
    try {
      entry = JSON.parse(line);
    } catch {
      continue;
    }
    if (!entry || typeof entry.agentId !== 'string') continue;
    if (entry.type === 'started' && !journal.started.includes(entry.agentId)) journal.started.push(entry.agentId);
    if (entry.type === 'result' && 'result' in entry) journal.results.set(entry.agentId, entry.result as Json);
  }
  return journal;
}
