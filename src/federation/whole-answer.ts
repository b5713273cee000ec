/**
 * Whether an endpoint's SPARQL results came whole. An answer that simply stops (the endpoint
 * ran out of memory or time and closed its response cleanly) is no HTTP error, and Comunica's
 * parsers take the solutions they read as all there are: a silently partial answer. JSON
 * results are whole when every brace and bracket opened is closed; XML results when they end
 * with the closing root tag. Other media types are not judged.
 */
export class WholeAnswer {
  private readonly kind: 'json' | 'xml' | undefined;
  /** JSON: the depth of braces and brackets, outside strings. */
  private depth = 0;
  private opened = false;
  private inString = false;
  private escaped = false;
  /** XML: the last characters seen. */
  private tail = '';

  constructor(contentType: string | null) {
    const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
    this.kind = type === 'application/sparql-results+json' ? 'json' : type === 'application/sparql-results+xml' ? 'xml' : undefined;
  }

  /** Whether the answer is of a media type judged here (SPARQL JSON or XML results). */
  get judged(): boolean {
    return this.kind !== undefined;
  }

  feed(bytes: Uint8Array): void {
    if (this.kind === 'xml') {
      // Latin-1 is enough to see ASCII markup; the tail keeps the closing tag and some space after it.
      this.tail = (this.tail + Buffer.from(bytes.subarray(-64)).toString('latin1')).slice(-64);
      return;
    }
    if (this.kind !== 'json') return;
    for (const b of bytes) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (b === 0x5c) this.escaped = true;
        else if (b === 0x22) this.inString = false;
      } else if (b === 0x22) this.inString = true;
      else if (b === 0x7b || b === 0x5b) {
        this.depth++;
        this.opened = true;
      } else if (b === 0x7d || b === 0x5d) this.depth--;
    }
  }

  get whole(): boolean {
    if (this.kind === 'json') return this.opened && this.depth === 0 && !this.inString;
    if (this.kind === 'xml') return /<\/(?:[\w.-]+:)?sparql\s*>\s*$/.test(this.tail);
    return true;
  }
}
