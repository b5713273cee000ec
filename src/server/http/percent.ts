import { HttpError } from '../errors.ts';

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const PERCENT = 0x25;

/**
 * A URL's query string or a form body as parameters, its percent-encoded bytes required to be
 * UTF-8 (SPARQL Protocol §2.1.1), as a query sent as the body is. URLSearchParams puts U+FFFD in
 * place of bytes that are not, so a client that encodes Latin-1 (`caf%E9`) had its query run for
 * "caf\uFFFD" and answered with nothing. A `%` not followed by two hex digits stays itself.
 */
export function utf8Params(text: string, what: string): URLSearchParams {
  if (text.includes('%')) {
    try {
      UTF8.decode(percentDecoded(text));
    } catch {
      throw new HttpError(
        400,
        `the ${what} is not UTF-8 once percent-decoded: encode each character as the bytes of its UTF-8 (é is %C3%A9)`,
      );
    }
  }
  return new URLSearchParams(text);
}

/** The bytes `text` stands for, each %XX one byte. */
function percentDecoded(text: string): Uint8Array {
  const raw = Buffer.from(text, 'utf8');
  const out = new Uint8Array(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (byte === PERCENT && isHex(raw[i + 1]) && isHex(raw[i + 2])) {
      out[n++] = Number.parseInt(String.fromCharCode(raw[i + 1], raw[i + 2]), 16);
      i += 2;
    } else out[n++] = byte;
  }
  return out.subarray(0, n);
}

function isHex(byte: number | undefined): boolean {
  return byte !== undefined && ((byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66));
}
