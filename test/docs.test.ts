import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, test } from 'node:test';
import { REPO } from './helpers.ts';

/**
 * The promise of the docs: a README a newcomer reads in five minutes, docs that name no one's
 * machine, commit or branch (they are read in any checkout, long after), and links that lead
 * somewhere.
 */

const DOCS = ['README.md', ...readdirSync(join(REPO, 'docs')).flatMap((f) => (f.endsWith('.md') ? [join('docs', f)] : []))];
/** Docs elsewhere in the tree that these link to and that link back: their links are held too. */
const LINKED = [join('src', 'server', 'README.md'), join('src', 'dialect', 'README.md')];
const text = (file: string) => readFileSync(join(REPO, file), 'utf8');

/** Hex of 7 to 40 digits with a letter and a digit in it (so neither a number nor a word), as git abbreviates a commit. */
const HEX = '(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}';

/**
 * What names a commit, a machine or a branch. A hex token counts where a commit would stand:
 * alone in backticks or parentheses, after "commit" or "at"/"on", or in a range; so a session id
 * in an example command (`weave conversation 6d590f7e`) or an issue number (oxigraph#1919) is
 * not one. Paths count from the machine's roots; /home/ada is the fixtures' user. A branch is
 * named as "branch `x`", "`x` branch", "the x branch" (not git's, which the graph records), or
 * work "on main".
 */
const RULES: [string, RegExp][] = [
  ['a commit hash', new RegExp(String.raw`\`${HEX}\`|\(${HEX}\)|\b(?:commits?|at|on)\s+${HEX}\b|\b${HEX}\.\.\.?${HEX}\b`)],
  ['a machine path', /(?<![\w.~-])\/(?:work|tmp|root)(?:\/|\b)|(?<![\w.~-])\/home\/(?!ada\b)[\w.-]+/],
  [
    'a branch name',
    /\bbranch(?:es)?\s+`[^`]+`|`[^`]+`\s+branch\b|\bthe\s+(?!git\b)[\w-]+\s+branch\b|\b(?:on|onto|into|at|from)\s+main\b(?![\s-]+(?:stream|thread|one)\b)/i,
  ],
];

function offences(doc: string): string[] {
  return doc.split('\n').flatMap((line, i) =>
    RULES.flatMap(([what, rule]) => {
      const m = rule.exec(line);
      return m ? [`line ${i + 1}: ${what}: ${m[0]}`] : [];
    }),
  );
}

describe('the rules find what they are for', () => {
  test('each flags what the README once held', () => {
    for (const line of [
      'against main at a6f360b the same way',
      'The scale work as integrated on d36cacc (branch scale-int, 763ca3b..2451ee9)',
      'measured with `./bin/weave ingest /work/shared/corpus --store /tmp/scale-main-store`',
      'At the scale branch’s own commit, before live-durable',
      'the fix (`1bfa05d`), or from /home/someone/weave',
    ])
      assert.notDeepEqual(offences(line), [], line);
  });
  test('and passes what only looks like one', () => {
    for (const line of [
      'weave conversation 6d590f7e                    # talks, runs, calls and tools of one session',
      'oxigraph#1919, fixed upstream by #1920; 3,051 calls (1,234,567 quads); a colour #1e1e1e',
      '`weave:gitBranch` and the git branch; `/home/ada/records-demo/README.md`; ~/.local/share/weave',
      'a fixture’s `7e55e55e-0000-4000-8000-000000000001`; the main stream; follow the main one',
    ])
      assert.deepEqual(offences(line), [], line);
  });
});

test('README.md is at most 250 lines', () => {
  const lines = text('README.md').split('\n').length - 1;
  assert.ok(lines <= 250, `README.md has ${lines} lines`);
});

test('no doc names a commit, a machine path or a branch', () => {
  for (const file of DOCS) assert.deepEqual(offences(text(file)), [], file);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    out.add(n ? `${slug}-${n}` : slug);
  }
  return out;
}

/** The text with fenced blocks and code spans blanked: what they hold is code, not links or headings. */
function withoutCode(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, (m) => m.replace(/[^\n]/g, ' ')).replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));
}

test('every relative link leads to a file that exists, and to a heading there', () => {
  for (const file of [...DOCS, ...LINKED]) {
    for (const [, target] of withoutCode(text(file)).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue;
      const [path, anchor] = target.split('#');
      const to = path ? resolve(REPO, dirname(file), decodeURIComponent(path)) : join(REPO, file);
      assert.ok(existsSync(to), `${file} links to ${target}: no ${relative(REPO, to)}`);
      if (anchor !== undefined && to.endsWith('.md'))
        assert.ok(anchors(readFileSync(to, 'utf8')).has(anchor), `${file} links to ${target}: no such heading`);
    }
  }
});
