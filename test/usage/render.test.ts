import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render } from '../../src/client/usage.ts';
import type { UsageReport } from '../../src/usage/report.ts';

test('weave usage session lines a CJK and emoji title up by the columns it takes, not its characters', () => {
  const tokens = { inputTokens: 10, outputTokens: 5, cacheCreationTokens: 0, cacheReadTokens: 0, totalTokens: 15 };
  const session = (sessionId: string) => ({
    sessionId,
    ...tokens,
    totalCost: 0.01,
    lastActivity: '2026-11-02',
    modelsUsed: ['claude-opus-4-1'],
    modelBreakdowns: [],
    projectPath: '-home-ada-demo',
  });
  const report = { sessions: [session('aaaaaaaa'), session('bbbbbbbb')], totals: { ...tokens, totalCost: 0.02 } } as unknown as UsageReport;
  const titles = new Map([
    // 16 ideographs (32 columns), a space and a rocket (2): 35 columns in 18 characters.
    ['aaaaaaaa', '修复登录页面的错误处理与重试逻辑 🚀'],
    ['bbbbbbbb', 'fix the login page error handling and retry'],
  ]);
  const lines = render(report, titles, { breakdown: false, width: 80 }).split('\n');
  // The CJK title is padded by 43 - 35 = 8 spaces, so Input starts where it does under the ASCII one.
  assert.deepEqual(lines.slice(0, 4), [
    'Session   Title                                        Input  Output  Cost (USD)',
    '--------  -------------------------------------------  -----  ------  ----------',
    `aaaaaaaa  修复登录页面的错误处理与重试逻辑 🚀${' '.repeat(8)}     10       5       $0.01`,
    'bbbbbbbb  fix the login page error handling and retry     10       5       $0.01',
  ]);
});
