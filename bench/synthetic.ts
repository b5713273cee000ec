/**
 * A synthetic Claude Code session of about a given size, streamed to disk line by line (never
 * held whole): the shape of fixtures/spine's main transcript repeated turn after turn. Each turn
 * is a typed prompt, a streamed response (thinking, text, a tool use, with usage), the tool's
 * result, and a closing answer, every record chained to the one before by parentUuid. Texts are
 * words drawn from a fixed list by a seeded generator, so a size gives the same file every time.
 *
 *   node --import tsx bench/synthetic.ts OUT_DIR BYTES [RESULT_BYTES]
 *
 * writes OUT_DIR/-home-ada-synthetic/<sessionId>.jsonl. RESULT_BYTES (default 2,000) is the size
 * of each tool result's text: a few huge results make a big graph from few lines.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';

export const SYNTHETIC_SESSION = '99999999-9999-4999-8999-999999999999';
export const SYNTHETIC_PROJECT = '-home-ada-synthetic';

const WORDS =
  'the a file test build error function value store graph session record line read write query index type string number array object module import export return async await promise stream buffer node path config option server client request response token usage model tool result call turn prompt answer change commit branch merge review fix bug issue memory limit size byte parse json quad triple term literal iri schema shape check run bench'.split(
    ' ',
  );
const TOOLS = ['Bash', 'Read', 'Edit', 'Grep', 'Glob', 'Write'];

/** A small seeded generator (mulberry32): the same file for the same arguments. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface SyntheticOptions {
  /** Stop once the file is at least this long. */
  bytes: number;
  /** The length of each tool result's text. */
  resultBytes?: number;
}

/** Writes the session under `dir`; returns its path, its lines and its length. */
export async function writeSyntheticSession(dir: string, { bytes, resultBytes = 2000 }: SyntheticOptions) {
  const project = join(dir, SYNTHETIC_PROJECT);
  await mkdir(project, { recursive: true });
  const path = join(project, `${SYNTHETIC_SESSION}.jsonl`);
  const out = createWriteStream(path);
  const next = random(42);
  const words = (n: number) => {
    const list: string[] = [];
    for (let i = 0; i < n; i++) list.push(WORDS[Math.floor(next() * WORDS.length)]);
    return list.join(' ');
  };
  /** About `size` characters of text, in lines of about 80. */
  const text = (size: number) => {
    const parts: string[] = [];
    let length = 0;
    while (length < size) {
      const line = words(12);
      parts.push(line);
      length += line.length + 1;
    }
    return parts.join('\n');
  };
  let written = 0;
  let lines = 0;
  let parent: string | null = null;
  let clock = Date.parse('2026-11-02T09:00:00.000Z');
  const common = {
    sessionId: SYNTHETIC_SESSION,
    cwd: '/home/ada/synthetic',
    version: '2.1.119',
    gitBranch: 'main',
    userType: 'external',
    entrypoint: 'cli',
  };
  const put = async (record: Record<string, unknown>) => {
    const line = `${JSON.stringify({ parentUuid: parent, isSidechain: false, ...record, timestamp: new Date(clock).toISOString(), ...common })}\n`;
    clock += 1000;
    parent = record.uuid as string;
    written += Buffer.byteLength(line);
    lines++;
    if (!out.write(line)) await once(out, 'drain');
  };
  const assistant = (turn: number, part: number, content: unknown[], stop: string | null) => ({
    type: 'assistant',
    requestId: `req_${turn}`,
    message: {
      id: `msg_${turn}_${part >= 3 ? 2 : 1}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-opus-4-7',
      content,
      stop_reason: stop,
      stop_sequence: null,
      usage: {
        input_tokens: 100 + turn,
        // Whole tokens: part 2.5 is the tool call between the text and its result.
        output_tokens: 20 + Math.ceil(part),
        cache_creation_input_tokens: 10,
        cache_read_input_tokens: 2000 + turn,
        service_tier: 'standard',
      },
    },
    uuid: `a-${turn}-${part}`,
  });
  await put({ type: 'permission-mode', permissionMode: 'default', uuid: undefined });
  parent = null;
  for (let turn = 1; written < bytes; turn++) {
    const prompt = `p-${turn}`;
    const tool = TOOLS[turn % TOOLS.length];
    const use = `toolu_${turn}`;
    await put({
      type: 'user',
      promptId: prompt,
      message: { role: 'user', content: `Please ${words(20)}` },
      uuid: `u-${turn}-1`,
      origin: { kind: 'human' },
    });
    await put(assistant(turn, 1, [{ type: 'thinking', thinking: words(40), signature: 'c2lnbmF0dXJl' }], null));
    await put(assistant(turn, 2, [{ type: 'text', text: words(30) }], null));
    await put(
      assistant(
        turn,
        2.5,
        [{ type: 'tool_use', id: use, name: tool, input: { command: words(6), path: `/home/ada/synthetic/src/${turn}.ts` } }],
        'tool_use',
      ),
    );
    const result = text(resultBytes);
    await put({
      type: 'user',
      promptId: prompt,
      message: { role: 'user', content: [{ tool_use_id: use, type: 'tool_result', content: result, is_error: turn % 17 === 0 }] },
      uuid: `u-${turn}-2`,
      toolUseResult: { stdout: result.slice(0, 200), stderr: '', interrupted: false, isImage: false },
      sourceToolAssistantUUID: `a-${turn}-2.5`,
    });
    await put(assistant(turn, 3, [{ type: 'text', text: words(60) }], 'end_turn'));
  }
  out.end();
  await once(out, 'finish');
  return { path, lines, bytes: written };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [dir, bytes, resultBytes] = process.argv.slice(2);
  if (!dir || !bytes) throw new Error('usage: synthetic.ts OUT_DIR BYTES [RESULT_BYTES]');
  const made = await writeSyntheticSession(dir, { bytes: Number(bytes), resultBytes: resultBytes ? Number(resultBytes) : undefined });
  console.log(JSON.stringify(made));
}
