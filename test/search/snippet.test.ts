import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shortened, snippet } from '../../src/search/snippet.ts';
import { highlight } from '../../src/server/http/routes/search.ts';

/**
 * A hit's snippet shows where the query's words are. Found by the new-user check: "git worktree"
 * over the corpus showed "@github:repos…" (the first place "git" stood inside a word) for a tool
 * result whose "git worktree" came further on, and the page marked the "git" of "github".
 */

const FILLER = 'filler words here '.repeat(30);

test('opens where the most of the terms are, not at the first place one stands inside a word', () => {
  const text = `Show me the data from @github:repos ${FILLER}and then an existing git worktree prepared for you${' tail'.repeat(40)}`;
  assert.equal(
    snippet(text, ['git', 'worktree']),
    '…er words here filler words here and then an existing git worktree prepared for you tail tail tail tail tail tail tail tail tail tail tail tail tail tail tail ta…',
  );
});

test('of two places that hold as many terms, takes the first', () => {
  const text = `start git worktree ${FILLER}again git worktree end`;
  assert.equal(snippet(text, ['git', 'worktree'], 40), 'start git worktree filler words here fil…');
});

test('a term found only inside words still places the snippet, filled to its width where the text ends; short texts are whole', () => {
  assert.equal(snippet(`${FILLER}see github here`, ['git'], 40), '…s here filler words here see github here');
  assert.equal(snippet('Two entries:\n XXXXXXXXX and src.', ['two', 'entries']), 'Two entries: XXXXXXXXX and src.');
  assert.equal(snippet('nothing matches', ['zzz']), 'nothing matches');
});

test('the search page marks a term where it stands as a word, in any case', () => {
  assert.equal(
    highlight('@github: a Git worktree, git-worktrees & <git>', ['git', 'worktree']),
    '@github: a <mark>Git</mark> <mark>worktree</mark>, <mark>git</mark>-worktrees &amp; &lt;<mark>git</mark>&gt;',
  );
});

test('the command line cuts a snippet to its width where the terms are, keeping its ellipses', () => {
  assert.equal(shortened('…aaaa bbbb git cccc worktree dddd eeee…', ['git', 'worktree'], 20), '… bbbb git cccc wor…');
  assert.equal(shortened('git worktree at the start, then more words…', ['git', 'worktree'], 20), 'git worktree at th…');
  assert.equal(shortened('…short enough', ['git'], 20), '…short enough');
});

test('counts the query words a window holds, not the forms of one word', () => {
  const text = `an existing git worktree here ${FILLER}in \`-experiments/worktrees\` with worktrees\` too`;
  assert.equal(snippet(text, ['git', 'worktree', 'worktrees', 'worktrees`', '`worktree'], 30), '… existing git worktree here fi…');
});

test('a character whose lower case is longer moves no place: the window is where the terms are', () => {
  const text = `İstanbul ${'İ'.repeat(200)} then git worktree here${' tail'.repeat(40)}`;
  assert.equal(snippet(text, ['git', 'worktree'], 30), '…İİİİ then git worktree here ta…');
});
