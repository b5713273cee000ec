import { fold, terminalWidth } from '../query/fit.ts';

/**
 * A message line for a person, folded to the terminal it goes to (a pipe or a log file takes it
 * whole), a progress line on that terminal cleared first so the two never share a line.
 */
export function tell(stream: NodeJS.WriteStream, text: string): void {
  const width = stream.isTTY ? terminalWidth(stream) : Number.POSITIVE_INFINITY;
  stream.write(
    `${stream.isTTY ? '\r\x1b[K' : ''}${text
      .split('\n')
      .flatMap((line) => fold(line, width))
      .join('\n')}\n`,
  );
}
