import type { Finding, Reader } from '../reader.ts';
import { toolUseOf, type BlockView, type SessionSpine } from '../spine.ts';

/**
 * tool/error: every tool result the harness marked `is_error`, with the tool that failed (found
 * through the result's link to its call) and the error's first line, which is what a person
 * scanning failures reads. The annotation selects that line.
 */
export const toolError: Reader = {
  name: 'tool/error',
  version: '1',
  description: 'Marks failed tool results with the tool name and the first line of the error.',
  read(spine: SessionSpine): Finding[] {
    const findings: Finding[] = [];
    for (const turn of spine.turns)
      for (const result of turn.blocks) {
        if (result.kind !== 'tool_result' || !result.isError) continue;
        const use = toolUseOf(spine, result);
        const holder = textHolder(result);
        const text = holder.text ?? '';
        const line = firstLine(text);
        findings.push({
          site: { turn, block: holder, text, sourceKind: 'tool_result', result },
          start: line.start,
          end: line.end,
          body: {
            toolName: use?.toolName,
            toolUseId: result.toolUseId,
            errorLine: text
              .slice(line.start, line.end)
              .replace(/<\/?tool_use_error>/g, '')
              .trim(),
          },
          used: use ? [use.iri] : undefined,
        });
      }
    return findings;
  },
};

/** The result block itself when its content is a string, else its first inner text block. */
function textHolder(result: BlockView): BlockView {
  if (result.text !== undefined) return result;
  return result.blocks.find((b) => b.kind === 'text' && b.text !== undefined) ?? result;
}

/** Longest first line kept, in UTF-16 units: error lines can be whole minified documents. */
const MAX_LINE = 500;

/** The first line with any non-space in it, without its surrounding spaces. */
export function firstLine(text: string): { start: number; end: number } {
  const first = /\S/.exec(text);
  if (!first) return { start: 0, end: 0 };
  const start = first.index;
  const newline = text.indexOf('\n', start);
  let end = newline < 0 ? text.length : newline;
  while (end > start && /\s/.test(text[end - 1])) end--;
  if (end - start > MAX_LINE) {
    end = start + MAX_LINE;
    // Never cut a surrogate pair in two.
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff) end--;
  }
  return { start, end };
}
