/** A moment as every command and page prints it: `2026-12-07 11:21:35 UTC` (to the second, in UTC). */
export function utcSeconds(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
