import assert from 'node:assert/strict';
import { homedir, platform } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { defaultStoreDir } from '../../src/store/paths.ts';

test('the default store is $WEAVE_HOME, else $XDG_DATA_HOME/weave, and an empty or relative XDG_DATA_HOME is ignored', {
  skip: platform() !== 'linux' && 'the XDG rule is for Linux',
}, () => {
  const fallback = join(homedir(), '.local', 'share', 'weave');
  assert.equal(defaultStoreDir({ WEAVE_HOME: '/srv/weave', XDG_DATA_HOME: '/data' }), '/srv/weave');
  assert.equal(defaultStoreDir({ XDG_DATA_HOME: '/data' }), '/data/weave');
  assert.equal(defaultStoreDir({}), fallback);
  // Empty: a store in ./weave of wherever the command ran, before.
  assert.equal(defaultStoreDir({ XDG_DATA_HOME: '' }), fallback);
  assert.equal(defaultStoreDir({ XDG_DATA_HOME: 'relative/data' }), fallback);
});
