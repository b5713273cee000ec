import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { ChunkDigest, DIGEST_CHUNK, digestOf } from '../../src/store/digest.ts';

const sha1 = (bytes: Uint8Array) => createHash('sha1').update(bytes).digest('hex');

test('a whole chunk digest gives the SHA-1 of every byte fed and the same chunk digests, fed in any parts, across the MiB boundaries', () => {
  // Lengths about the boundaries (none, one byte, a MiB less one, a MiB, a MiB and one, past two MiB).
  const lengths = fc.constantFrom(0, 1, DIGEST_CHUNK - 1, DIGEST_CHUNK, DIGEST_CHUNK + 1, 2 * DIGEST_CHUNK + 12_345);
  fc.assert(
    fc.property(lengths, fc.array(fc.nat(DIGEST_CHUNK + 7), { maxLength: 6 }), fc.nat(255), (length, cuts, seed) => {
      const bytes = new Uint8Array(length);
      for (let i = 0; i < length; i++) bytes[i] = (i * 31 + seed) & 255;
      const digest = new ChunkDigest([], true);
      const at = [...new Set(cuts.map((c) => c % (length + 1)))].sort((x, y) => x - y);
      let from = 0;
      for (const to of [...at, length]) {
        digest.update(bytes.subarray(from, to));
        from = to;
      }
      assert.equal(digest.sha1(), sha1(bytes));
      assert.deepEqual(digest.digests(), digestOf(bytes));
    }),
    { seed: 11, numRuns: 40 },
  );
  // One not made whole has none to give.
  assert.throws(() => new ChunkDigest().sha1(), /not made whole/);
});
