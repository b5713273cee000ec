import { HttpError } from '../errors.ts';

/**
 * A URL's query string or a form body as parameters, its percent-encoded bytes required to be
 * UTF-8 (SPARQL Protocol §2.1.1), as a query sent as the body is. URLSearchParams puts U+FFFD in
 * place of bytes that are not, so a client that encodes Latin-1 (`caf%E9`) had its query run for
 * "caf\uFFFD" and answered with nothing. decodeURIComponent refuses such bytes; a `%` not followed
 * by two hex digits, which URLSearchParams keeps as itself, is escaped first so it is not refused.
 */
export function utf8Params(text: string, what: string): URLSearchParams {
  if (text.includes('%')) {
    try {
      decodeURIComponent(text.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
    } catch {
      throw new HttpError(
        400,
        `the ${what} is not UTF-8 once percent-decoded: encode each character as the bytes of its UTF-8 (é is %C3%A9)`,
      );
    }
  }
  return new URLSearchParams(text);
}
