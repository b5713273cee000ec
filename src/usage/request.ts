import type { ReportKind, ReportOptions } from './report.ts';

/**
 * A usage report asked for: which one, and its options, read from the words `weave usage` takes
 * (`--since 20250101`, `--start-of-week monday`, …) or from a `/usage` URL's parameters of the
 * same names, with the same checks and the same messages, so the command and the server read
 * one request alike.
 */

export const REPORT_KINDS: ReportKind[] = ['daily', 'weekly', 'monthly', 'session', 'blocks'];
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** The words of a request, as the command line or the URL gives them. */
export interface ReportWords {
  report?: string;
  since?: string;
  until?: string;
  model?: string;
  project?: string;
  order?: string;
  'start-of-week'?: string;
  'session-length'?: string;
}

/** A request that cannot be read: what is wrong, in the command's words. */
export class ReportRequestError extends Error {}

export function reportRequest(words: ReportWords): { kind: ReportKind; options: ReportOptions } {
  const kind = (words.report ?? 'daily') as ReportKind;
  if (!REPORT_KINDS.includes(kind))
    throw new ReportRequestError(`unknown report "${words.report}": give one of ${REPORT_KINDS.join(', ')}`);
  const order = words.order;
  if (order !== undefined && order !== 'asc' && order !== 'desc') throw new ReportRequestError('--order must be asc or desc');
  const startOfWeek = DAYS.indexOf((words['start-of-week'] ?? 'sunday').toLowerCase());
  if (startOfWeek < 0) throw new ReportRequestError(`--start-of-week must be a day name (${DAYS.join(', ')})`);
  const sessionLength = words['session-length'] === undefined ? 5 : Number(words['session-length']);
  if (!(sessionLength > 0)) throw new ReportRequestError('--session-length must be a positive number of hours');
  return {
    kind,
    options: {
      since: day(words.since, '--since'),
      until: day(words.until, '--until'),
      model: words.model,
      project: words.project,
      order,
      startOfWeek,
      sessionLength,
    },
  };
}

/** YYYYMMDD (as ccusage takes it) or YYYY-MM-DD, as YYYY-MM-DD. */
export function day(text: string | undefined, option: string): string | undefined {
  if (text === undefined) return undefined;
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(text);
  const date = m && `${m[1]}-${m[2]}-${m[3]}`;
  // A day of the calendar only: Date.parse takes 2026-02-30 (as 2 March), so the date must read back the same.
  if (!date || !isCalendarDay(date)) throw new ReportRequestError(`${option} must be a date, YYYYMMDD or YYYY-MM-DD, not "${text}"`);
  return date;
}

function isCalendarDay(date: string): boolean {
  const time = Date.parse(`${date}T00:00:00Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().slice(0, 10) === date;
}
