import type { Hit } from './index.ts';

/** Where else a hit's text is, in words (`also in 2 sub-agent streams`), for the CLI and the search page alike. */
export function copiesOf(h: Pick<Hit, 'alsoIn' | 'alsoInStreams'>): string[] {
  const n = (count: number, one: string) => `${count} ${one}${count > 1 ? 's' : ''}`;
  return [
    ...(h.alsoInStreams ? [`also in ${n(h.alsoInStreams, 'sub-agent stream')}`] : []),
    ...(h.alsoIn ? [`also in ${n(h.alsoIn, 'other session')}`] : []),
  ];
}
