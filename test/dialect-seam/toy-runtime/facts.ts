import type { Term } from '../../../src/rdf/terms.ts';
import type { RecordFact, RecordFacts } from '../../../src/model/facts.ts';
import type { ToyRecord } from './read.ts';

/** What the model is handed of a toy record: an ask opens a run, a say or call is a fragment of its reply. */
export function recordFacts({ record }: { record: ToyRecord }, at: { stream: number; line: number; event: Term }): RecordFacts {
  const fact: RecordFact = {
    stream: at.stream,
    line: at.line,
    event: at.event,
    blockKey: record.id,
    uuid: record.id,
    time: Date.parse(record.time),
  };
  if (record.parent) fact.parent = record.parent;
  if (record.verb === 'ask') {
    fact.step = 'message.external';
    fact.stepEvidence = 'exact_unique';
    fact.origin = 'external';
    fact.opensRun = true;
  } else if (record.verb === 'result') {
    fact.toolResults = [{ toolUseId: record.call!, order: 0, isError: record.failed === true }];
  } else {
    fact.messageId = record.reply;
    fact.synthetic = false;
    fact.stopped = true;
    fact.blocks = record.verb === 'say' ? [{ order: 0, kind: 'text' }] : [];
    fact.toolUses = record.verb === 'call' ? [{ id: record.call!, order: 0 }] : [];
  }
  return { fact };
}
