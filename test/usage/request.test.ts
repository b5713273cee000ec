import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';
import { ReportRequestError, reportRequest } from '../../src/usage/request.ts';
import { REPO, removeDir, tempDir } from '../helpers.ts';

/** `--since` and `--until` take days of the calendar: a day a month does not have is a mistake, not the next month. */

const since = (text: string) => reportRequest({ since: text }).options.since;

test('--since and --until: days of the calendar, leap days where the year has one', () => {
  assert.equal(since('20240229'), '2024-02-29');
  assert.equal(since('2026-04-30'), '2026-04-30');
  assert.equal(reportRequest({ until: '20261231' }).options.until, '2026-12-31');
});

test('--since and --until: a day the month does not have is refused, as a month 13 is', () => {
  for (const text of ['20260230', '2025-02-29', '2026-04-31', '2026-11-31', '2026-13-01', '2026-01-32']) {
    assert.throws(() => since(text), new ReportRequestError(`--since must be a date, YYYYMMDD or YYYY-MM-DD, not "${text}"`));
    assert.throws(
      () => reportRequest({ until: text }),
      new ReportRequestError(`--until must be a date, YYYYMMDD or YYYY-MM-DD, not "${text}"`),
    );
  }
});

test('weave usage --since 20260230: exit 2, with what is wrong', async () => {
  const dir = await tempDir();
  try {
    const run = promisify(execFile)(join(REPO, 'bin', 'weave'), ['usage', '--since', '20260230', '--store', dir, '--no-daemon']);
    const failed = (await run.then(
      () => assert.fail('the command ran'),
      (e) => e,
    )) as { code: number; stderr: string };
    assert.equal(failed.code, 2);
    assert.match(failed.stderr, /--since must be a date, YYYYMMDD or YYYY-MM-DD, not "20260230"/);
  } finally {
    await removeDir(dir);
  }
});
