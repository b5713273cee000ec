/**
 * Five-hour billing blocks, as ccusage draws them: a block starts at the hour (UTC) of its first
 * call and lasts the block length; a call more than a block length after the block's start, or
 * after the previous call, starts a new block; a silence longer than a block length between two
 * calls is a gap block of its own. The calls come from SPARQL (one row per API call).
 */

export interface CallRow {
  time: Date;
  model: string;
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
  cost: number;
}

interface TokenCounts {
  inputTokens: number;
  outputTokens: number;
  cacheCreationInputTokens: number;
  cacheReadInputTokens: number;
}

/** ccusage's blocks JSON, field for field. */
export interface Block {
  id: string;
  startTime: string;
  endTime: string;
  actualEndTime: string | null;
  isActive: boolean;
  isGap: boolean;
  entries: number;
  tokenCounts: TokenCounts;
  totalTokens: number;
  costUSD: number;
  models: string[];
  burnRate: { tokensPerMinute: number; tokensPerMinuteForIndicator: number; costPerHour: number } | null;
  projection: { totalTokens: number; totalCost: number; remainingMinutes: number } | null;
}

const HOUR = 3_600_000;

export function blocksOf(calls: CallRow[], hours: number, now: Date): Block[] {
  const length = hours * HOUR;
  const sorted = [...calls].sort((a, b) => a.time.getTime() - b.time.getTime());
  const blocks: Block[] = [];
  let start: Date | undefined;
  let members: CallRow[] = [];
  for (const call of sorted) {
    const last = members[members.length - 1];
    if (start && last && (call.time.getTime() - start.getTime() > length || call.time.getTime() - last.time.getTime() > length)) {
      blocks.push(block(start, members, length, now));
      if (call.time.getTime() - last.time.getTime() > length) blocks.push(gap(last.time, call.time, length));
      start = undefined;
    }
    if (!start) {
      start = floorToHour(call.time);
      members = [];
    }
    members.push(call);
  }
  if (start && members.length) blocks.push(block(start, members, length, now));
  return blocks;
}

function floorToHour(time: Date): Date {
  const floored = new Date(time);
  floored.setUTCMinutes(0, 0, 0);
  return floored;
}

function block(start: Date, calls: CallRow[], length: number, now: Date): Block {
  const end = new Date(start.getTime() + length);
  const actualEnd = calls[calls.length - 1].time;
  const tokenCounts: TokenCounts = { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
  let cost = 0;
  const models: string[] = [];
  for (const c of calls) {
    tokenCounts.inputTokens += c.input;
    tokenCounts.outputTokens += c.output;
    tokenCounts.cacheCreationInputTokens += c.cacheCreation;
    tokenCounts.cacheReadInputTokens += c.cacheRead;
    cost += Math.round(c.cost * 1e8); // whole 1e-8 USD: exact sums
    if (!models.includes(c.model)) models.push(c.model);
  }
  cost /= 1e8;
  const isActive = now.getTime() - actualEnd.getTime() < length && now < end;
  const totalTokens = total(tokenCounts);
  const minutes = (actualEnd.getTime() - calls[0].time.getTime()) / 60_000;
  const burnRate =
    isActive && minutes > 0
      ? {
          tokensPerMinute: totalTokens / minutes,
          tokensPerMinuteForIndicator: (tokenCounts.inputTokens + tokenCounts.outputTokens) / minutes,
          costPerHour: (cost / minutes) * 60,
        }
      : null;
  const remainingMinutes = Math.max(0, (end.getTime() - now.getTime()) / 60_000);
  const projection = burnRate
    ? {
        totalTokens: Math.round(totalTokens + burnRate.tokensPerMinute * remainingMinutes),
        totalCost: Math.round((cost + (burnRate.costPerHour / 60) * remainingMinutes) * 100) / 100,
        remainingMinutes: Math.round(remainingMinutes),
      }
    : null;
  return {
    id: start.toISOString(),
    startTime: start.toISOString(),
    endTime: end.toISOString(),
    actualEndTime: actualEnd.toISOString(),
    isActive,
    isGap: false,
    entries: calls.length,
    tokenCounts,
    totalTokens,
    costUSD: cost,
    models,
    burnRate,
    projection,
  };
}

function gap(lastCall: Date, nextCall: Date, length: number): Block {
  const start = new Date(lastCall.getTime() + length);
  return {
    id: `gap-${start.toISOString()}`,
    startTime: start.toISOString(),
    endTime: nextCall.toISOString(),
    actualEndTime: null,
    isActive: false,
    isGap: true,
    entries: 0,
    tokenCounts: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    totalTokens: 0,
    costUSD: 0,
    models: [],
    burnRate: null,
    projection: null,
  };
}

function total(t: TokenCounts): number {
  return t.inputTokens + t.outputTokens + t.cacheCreationInputTokens + t.cacheReadInputTokens;
}
