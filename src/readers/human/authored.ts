import type { Finding, Reader } from '../reader.ts';
import type { SessionSpine } from '../spine.ts';
import { codePoints } from '../text.ts';
import { humanPrompts } from './prompts.ts';

/**
 * human/authored: the user turns a person really typed (the rules are in `prompts.ts`). The
 * annotation selects the prompt's whole text block; the body says whether the record stated
 * its human origin or only showed none of the marks of injected text.
 */
export const humanAuthored: Reader = {
  name: 'human/authored',
  version: '1',
  description: 'Marks the user turns a person typed: human origin, not meta, no tool result, not a command, channel or reminder wrapper.',
  read(spine: SessionSpine): Finding[] {
    return [...humanPrompts(spine)].map(({ turn, block, originStated }): Finding => {
      const text = block.text!;
      return {
        site: { turn, block, text, sourceKind: 'authored' },
        start: 0,
        end: text.length,
        body: {
          basis: originStated ? 'origin-human' : 'no-injection-marks',
          charCount: codePoints(text),
        },
        confidence: originStated ? 0.95 : 0.8,
      };
    });
  },
};
