import { weave } from '../../rdf/vocab.ts';
import type { Dialect } from '../dialect.ts';
import { defaultProjectsRoot, discoverSessions, type ClaudeTranscriptSource } from './discover.ts';
import { dialectObservers } from './emit/observers.ts';
import { emitRecord } from './emit/spine.ts';
import { recordFacts } from './facts.ts';
import { CLAUDE_CODE_GLOSSARY } from './glossary.ts';
import { callMintedAtRandom, idPath } from './ids.ts';
import { isWrapper } from './prompt.ts';
import { DIALECT, readLine } from './read.ts';
import type { ReadRecord } from './records.ts';
import { openTranscript } from './transcript.ts';

/** Claude Code's JSONL transcripts, as claude-code/1 reads them. */
export const dialect: Dialect<ReadRecord, ClaudeTranscriptSource> = {
  id: DIALECT,
  module: import.meta.url,
  transcriptClass: weave.ClaudeCodeTranscript,
  glossary: CLAUDE_CODE_GLOSSARY,
  defaultPaths: (env) => [defaultProjectsRoot(env)],
  discover: discoverSessions,
  openTranscript,
  readLine,
  recordId: (read) => read.record.uuid,
  emitRecord,
  observers: dialectObservers,
  facts: recordFacts,
  ids: { idPath, callShared: callMintedAtRandom },
  writtenByRuntime: isWrapper,
};
