import { createReadStream } from 'node:fs';

/** One physical line of a source file, with where it sits. */
export interface SourceLine {
  /** 1-based line number. */
  lineNo: number;
  /** Byte offset of the line's first byte in the file. */
  offset: number;
  /** Byte length of the line, without its line terminator. */
  byteLength: number;
  /** The line as text (UTF-8 decoded, trailing CR removed). */
  text: string;
  /** False only for a final line with no newline after it: it may still be being written. */
  terminated: boolean;
}

const NL = 0x0a;

export interface ReadFrom {
  /** The byte to start at (the start of a line), and the number of the line that starts there. */
  start?: number;
  firstLine?: number;
  /** Where to stop (exclusive), as if the file ended there. */
  end?: number;
  /** Handed every byte read, in order, as it is read (for a copy of what was read). */
  tap?: (bytes: Buffer) => void;
}

/**
 * Streams a file line by line without reading it whole; memory stays bounded by the longest line.
 * Byte offsets are exact because splitting happens on bytes, before decoding.
 */
export function readLines(path: string, from: ReadFrom = {}): AsyncGenerator<SourceLine> {
  const { start = 0, end } = from;
  if (end !== undefined && end <= start) return readLinesFrom([], from);
  return readLinesFrom(createReadStream(path, { start, end: end === undefined ? undefined : end - 1, highWaterMark: 1 << 20 }), from);
}

/** The lines of a stream of bytes (a file, or the archive's copy of one), `start` being the offset of its first byte. */
export async function* readLinesFrom(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  { start = 0, firstLine = 1, tap }: ReadFrom = {},
): AsyncGenerator<SourceLine> {
  let lineNo = firstLine - 1;
  let offset = start;
  let pending: Buffer[] = [];
  let pendingLength = 0;
  for await (const chunk of chunks) {
    tap?.(chunk);
    let from = 0;
    for (let nl = chunk.indexOf(NL, from); nl !== -1; nl = chunk.indexOf(NL, from)) {
      const piece = chunk.subarray(from, nl);
      const bytes = pendingLength ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      pendingLength = 0;
      yield toLine(bytes, ++lineNo, offset, true);
      offset += bytes.length + 1;
      from = nl + 1;
    }
    if (from < chunk.length) {
      pending.push(chunk.subarray(from));
      pendingLength += chunk.length - from;
    }
  }
  if (pendingLength) yield toLine(Buffer.concat(pending), ++lineNo, offset, false);
}

function toLine(bytes: Buffer, lineNo: number, offset: number, terminated: boolean): SourceLine {
  let end = bytes.length;
  if (end && bytes[end - 1] === 0x0d) end--;
  // A byte order mark opening the file is not part of its first line's text (its bytes still count).
  const start = offset === 0 && end >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  return { lineNo, offset, byteLength: end, text: bytes.toString('utf8', start, end), terminated };
}

/** How often `needle` starts in `text` from `from` and before `to` (line breaks, say): counted without splitting the text. */
export function occurrences(text: string, needle: string, from = 0, to = text.length): number {
  let n = 0;
  for (let at = text.indexOf(needle, from); at !== -1 && at < to; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}
