import { readFile } from 'node:fs/promises';

/**
 * The price table, `data/prices.json`: USD per million tokens per model, with its source and the
 * date it was taken. One file, so a price change is one reviewed diff.
 */

const PRICES_FILE = new URL('../../data/prices.json', import.meta.url);

interface Price {
  input: number;
  output: number;
  /** Cache writes at the 5-minute rate: `cache_creation_input_tokens` but their one-hour part. */
  cacheWrite: number;
  /** Cache writes at the one-hour rate: `cache_creation.ephemeral_1h_input_tokens`. */
  cacheWrite1h: number;
  cacheRead: number;
}

export interface PriceTable {
  source: string;
  retrieved: string;
  models: Record<string, Price>;
}

interface Tokens {
  input: number;
  output: number;
  /** All cache writes, the one-hour ones among them. */
  cacheCreation: number;
  cacheCreation1h: number;
  cacheRead: number;
}

export async function loadPrices(file: URL | string = PRICES_FILE): Promise<PriceTable> {
  const table = JSON.parse(await readFile(file, 'utf8')) as PriceTable;
  for (const [model, price] of Object.entries(table.models))
    for (const key of ['input', 'output', 'cacheWrite', 'cacheWrite1h', 'cacheRead'] as const)
      if (typeof price[key] !== 'number' || !(price[key] >= 0)) throw new Error(`${String(file)}: ${model}.${key} is not a price`);
  return table;
}

const DATE_SUFFIX = /-\d{8}$/;

/**
 * A model as `weave usage` names it, and merges it: claude-opus-4-5-20251101 → opus-4-5 (its
 * family, the dated and the undated id as one); with `dated`, opus-4-5-20251101.
 */
export const shortModel = (m: string, dated = false) => (dated ? m : m.replace(DATE_SUFFIX, '')).replace(/^claude-/, '');

/** A model's entry: its own, else its family's (the id without a -YYYYMMDD date suffix). */
export function priceOf(table: PriceTable, model: string): Price | undefined {
  return table.models[model] ?? table.models[model.replace(DATE_SUFFIX, '')];
}

/**
 * A call's cache writes by rate: the one-hour ones as written, but never more than all of them
 * (a hand-written record may say so), and the rest at the 5-minute rate.
 */
export function cacheWrites(cacheCreation: number, cacheCreation1h: number): { fiveMinute: number; oneHour: number } {
  const oneHour = Math.min(cacheCreation1h, cacheCreation);
  return { fiveMinute: cacheCreation - oneHour, oneHour };
}

/** USD for some tokens at a price (per million tokens). */
export function costOf(price: Price | undefined, t: Tokens): number {
  if (!price) return 0;
  const writes = cacheWrites(t.cacheCreation, t.cacheCreation1h);
  return (
    (t.input * price.input +
      t.output * price.output +
      writes.fiveMinute * price.cacheWrite +
      writes.oneHour * price.cacheWrite1h +
      t.cacheRead * price.cacheRead) /
    1e6
  );
}

/**
 * The table as a SPARQL VALUES block keyed by `key` (its prices named with `suffix`), so a query
 * prices calls itself by the same rule as `priceOf`, in whole US cents per million tokens:
 * integer arithmetic is exact, and Oxigraph 0.5 leaves 0 × a fractional decimal unbound.
 */
export function pricesValues(table: PriceTable, key = '?priced', suffix = ''): string {
  const rows = Object.entries(table.models).map(
    ([model, p]) =>
      `    (${JSON.stringify(model)} ${cents(p.input)} ${cents(p.output)} ${cents(p.cacheWrite)} ${cents(p.cacheWrite1h)} ${cents(p.cacheRead)})`,
  );
  const vars = ['?pIn', '?pOut', '?pCacheWrite', '?pCacheWrite1h', '?pCacheRead'].map((v) => v + suffix).join(' ');
  return `VALUES (${key} ${vars}) {\n${rows.join('\n')}\n  }`;
}

/** A price in whole US cents per million tokens, as the query prices calls (see `pricesValues`). */
export function centsPerMillion(price: Price): Price {
  return {
    input: cents(price.input),
    output: cents(price.output),
    cacheWrite: cents(price.cacheWrite),
    cacheWrite1h: cents(price.cacheWrite1h),
    cacheRead: cents(price.cacheRead),
  };
}

/** USD cents per million tokens per USD per million tokens: the query's divisor is 1e6 × 100. */
export const CENTS_DIVISOR = 100_000_000;

function cents(usd: number): number {
  const c = Math.round(usd * 100);
  if (Math.abs(c - usd * 100) > 1e-6) throw new Error(`price ${usd} is finer than a cent per million tokens`);
  return c;
}
