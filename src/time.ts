/** A moment as every command and page prints it: `2026-12-07 11:21:35 UTC` (to the second, in UTC). */
export function utcSeconds(iso: string): string {
  const time = new Date(iso);
  return Number.isNaN(time.getTime()) ? iso : `${time.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** From one moment to another, the second's day left out when it is the first's: `2026-12-07 11:21:35 – 12:02:10 UTC`. */
export function utcSpan(from: string, until: string): string {
  const [start, end] = [utcSeconds(from), utcSeconds(until)];
  if (!start.endsWith(' UTC') || !end.endsWith(' UTC')) return `${from} – ${until}`;
  const sameDay = start.slice(0, 10) === end.slice(0, 10);
  return `${start.slice(0, -4)} – ${sameDay ? end.slice(11) : end}`;
}
