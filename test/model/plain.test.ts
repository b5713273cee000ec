import assert from 'node:assert/strict';
import { test } from 'node:test';
import { definition, plainName, withPlainName } from '../../src/model/plain.ts';

test('the model terms in plain words, with their definitions, for the pages and weave conversation alike', () => {
  assert.deepEqual(
    ['talk', 'run', 'llm.call', 'tool', 'stream', 'epoch', 'candidate', 'exact_unique', 'strong_inference', 'weak_inference'].map(
      plainName,
    ),
    [
      'exchange',
      "one prompt's work",
      'API call',
      'tool call',
      'thread',
      'context between compactions',
      'closed, could be committed',
      'exact',
      'inferred',
      'guessed',
    ],
  );
  // Plain already, or not the model's: nothing to add.
  assert.deepEqual(['session', 'thinking', 'within', 'constructor'].map(plainName), [undefined, undefined, undefined, undefined]);
  assert.equal(withPlainName('run'), "run (one prompt's work)");
  assert.equal(withPlainName('run', 'promptId'), "promptId (one prompt's work)");
  assert.equal(withPlainName('session'), 'session');
  // The definitions are the ontology's (src/model/vocabulary.ts).
  assert.equal(definition('strong_inference'), "No identifier, but a sound structural argument (a walk up parent links, a file's folder).");
  assert.equal(definition('candidate'), "open for a session's last window, candidate for the earlier ones: whether it could still grow.");
  assert.equal(definition('nonsense'), undefined);
});
