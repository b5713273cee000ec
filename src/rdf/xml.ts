/**
 * XML 1.0 text for RDF/XML and SPARQL XML results. XML 1.0 cannot carry most C0 control
 * characters (ESC, U+001B, is common in terminal output that transcripts quote), U+FFFE or
 * U+FFFF, not even as character references, so a document holding one is not XML at all.
 * Writers therefore count them first and refuse with the count (never writing ill-formed XML);
 * everything else is escaped so that parsers read back exactly the stored text.
 */

/** Characters XML 1.0 (§2.2 Char) does not allow anywhere. Lone surrogates are not in stored text. */
export const NOT_XML_CHAR = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
const NOT_XML_CHARS = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/g;

/** The characters of `text` that XML 1.0 cannot carry, as U+XXXX names with their counts. */
export function nonXmlCharacters(text: string, into: Map<string, number> = new Map()): Map<string, number> {
  for (const [c] of text.matchAll(NOT_XML_CHARS)) {
    const name = `U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
    into.set(name, (into.get(name) ?? 0) + 1);
  }
  return into;
}

/**
 * Character data. CR is written as a reference because parsers turn a raw CR (or CRLF) into LF;
 * `>` is escaped for the `]]>` sequence.
 */
export function xmlText(text: string): string {
  return /[&<>\r]/.test(text) ? text.replace(/[&<>\r]/g, (c) => XML_ESCAPES[c]) : text;
}

/** An attribute value in double quotes; tab, LF and CR as references, since parsers normalise them to spaces. */
export function xmlAttribute(text: string): string {
  return /[&<>"\t\n\r]/.test(text) ? text.replace(/[&<>"\t\n\r]/g, (c) => XML_ESCAPES[c]) : text;
}

const XML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/**
 * N-Triples escapes (`\u001B`, `\U0000001B`) of characters XML 1.0 cannot carry, so a graph
 * file can be checked without decoding it. A preceding escaped backslash (`\\u001B`, the text
 * "\u001B") does not count. Raw characters count too.
 */
export const NOT_XML_IN_NTRIPLES =
  /(?<!\\)(?:\\\\)*\\(?:u(?:000[0-8BbCcEeFf]|001[0-9A-Fa-f]|[Ff]{3}[EeFf])|U0000(?:000[0-8BbCcEeFf]|001[0-9A-Fa-f]|[Ff]{3}[EeFf]))|[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/;
