import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';

/**
 * The full disk of issue 15, for real: a store on a small tmpfs, mounted in a private user and
 * mount namespace (`unshare -rm`, so nothing outside sees it and it goes with the child), the
 * disk filled to one free page, then a forced re-ingest. The kernel's own short write and ENOSPC
 * are what the writer meets. Where no tmpfs can be mounted (no unshare, no user namespaces) the
 * test says so and skips; test/store/writer.test.ts covers the same ground with a counted disk.
 */

const run = promisify(execFile);
const WEAVE = join(REPO, 'bin', 'weave');

// Each step prints a marker, so the parent can tell the sections apart.
const SCRIPT = String.raw`
set -u
mount -t tmpfs -o size=2m tmpfs "$ROOT" || exit 90
store="$ROOT/store"
# The graph files and the manifest (the search index is derived, and rebuilt, not byte-stable).
sums() { (cd "$store" && find . -type f -not -path './search/*' | sort | xargs sha256sum); }
"$WEAVE" ingest "$SPINE" --store "$store" --no-detect >/dev/null 2>&1 || exit 91
echo "== before"; sums
# Fill the disk in whole pages, then give one page back: room for 4096 bytes.
dd if=/dev/zero of="$ROOT/filler" bs=4096 >/dev/null 2>&1
truncate -s -4096 "$ROOT/filler"
echo "== full ingest"
"$WEAVE" ingest "$SPINE" --store "$store" --force --no-detect >/dev/null 2>"$ROOT/../stderr"
echo "rc=$?"
echo "== stderr"; cat "$ROOT/../stderr"
echo "== after"; sums
echo "== files"; (cd "$store" && find . | sort)
rm "$ROOT/filler"
echo "== again"
"$WEAVE" ingest "$SPINE" --store "$store" --force --no-detect >/dev/null 2>&1
echo "rc=$?"
echo "== after again"; sums
# No room at all: not even the lock can be written.
dd if=/dev/zero of="$ROOT/filler" bs=4096 >/dev/null 2>&1
echo "== no room"
"$WEAVE" ingest "$SPINE" --store "$store" --force --no-detect >/dev/null 2>"$ROOT/../stderr"
echo "rc=$?"
echo "== no room stderr"; cat "$ROOT/../stderr"
echo "== after no room"; sums
echo "== files after no room"; (cd "$store" && find . | sort)
`;

function sections(out: string): Record<string, string> {
  const parts: Record<string, string> = {};
  for (const part of out.split(/^== /m).slice(1)) {
    const nl = part.indexOf('\n');
    parts[part.slice(0, nl)] = part.slice(nl + 1);
  }
  return parts;
}

test('a full disk during ingest: one line naming the graph file (or the lock), exit 1, the store exactly as it was, no temporary file, no lock left', async (t) => {
  const parent = await tempDir('weave-disk-full-');
  const root = join(parent, 'disk');
  try {
    await run('mkdir', [root]);
    const child: { code?: number | string; stdout?: string; stderr?: string } = await run('unshare', ['-rm', 'sh', '-c', SCRIPT], {
      env: { ...process.env, ROOT: root, WEAVE, SPINE: join(FIXTURES, 'spine') },
    }).catch((e) => e);
    // 90: mount refused; ENOENT: no unshare; "unshare: …": no user namespaces.
    if (child.code === 90 || child.code === 'ENOENT' || (child.code && /^unshare: /.test(child.stderr ?? ''))) {
      t.skip(
        `cannot mount a tmpfs here (${
          String(child.stderr ?? child.code)
            .trim()
            .split('\n')[0]
        })`,
      );
      return;
    }
    assert.equal(child.code ?? 0, 0, `the script failed: ${child.stderr}`);
    const out = sections(child.stdout!);

    assert.equal(out['full ingest'], 'rc=1\n');
    const lines = out.stderr
      .trimEnd()
      .split('\n')
      .filter((l) => l.startsWith('weave ingest:'));
    assert.equal(lines.length, 1);
    assert.match(
      lines[0],
      new RegExp(
        `^weave ingest: cannot write ${root}/store/graphs/[0-9a-f]{40}\\.nq: no space left on device \\(ENOSPC\\); the previous file stays as it was$`,
      ),
    );
    assert.equal(out.after, out.before, 'every graph file and the manifest are byte-identical');
    assert.doesNotMatch(out.files, /\.tmp$/m);
    assert.match(out.before, /\.\/manifest\.json\n/);

    // The lock went with the failed run: the next run is not told of a crash.
    assert.doesNotMatch(out.files, /^\.\/lock$/m);

    // With room again, the same ingest succeeds and writes the same bytes.
    assert.equal(out.again, 'rc=0\n');
    assert.equal(out['after again'], out.before);

    // With no room even for the lock: one line naming it, and the store as it was.
    assert.equal(out['no room'], 'rc=1\n');
    assert.equal(
      out['no room stderr'],
      `weave ingest: cannot take the store lock ${root}/store/lock: no space left on device (ENOSPC); the store stays as it was\n`,
    );
    assert.equal(out['after no room'], out.before);
    assert.doesNotMatch(out['files after no room'], /lock|\.tmp$/m);
  } finally {
    await removeDir(parent);
  }
});
