import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readLine } from '../src/dialect/claude-code/read.ts';
import { emitSpine, eventIri } from '../src/dialect/claude-code/emit/spine.ts';
import { instanceIri } from '../src/rdf/iri.ts';
import { iri, str, type Triple } from '../src/rdf/terms.ts';
import { FIXTURES } from './helpers.ts';

const S1 = '11111111-1111-4111-8111-111111111111';
const MAIN = join(FIXTURES, 'spine', '-home-ada-weave-demo', `${S1}.jsonl`);
const LINES = readFileSync(MAIN, 'utf8').split('\n');
const T = iri('urn:soul:local:Weave/Transcript/11111111-1111-4111-8111-111111111111');
const W = (local: string) => `<https://repolex.ai/ontology/weave#${local}>`;
const TYPE = '<http://www.w3.org/1999/02/22-rdf-syntax-ns#type>';
const INT = (n: number) => `"${n}"^^<http://www.w3.org/2001/XMLSchema#integer>`;
const BOOL = (b: boolean) => `"${b}"^^<http://www.w3.org/2001/XMLSchema#boolean>`;
const JSONL = (v: string) => `${JSON.stringify(v)}^^<http://www.w3.org/1999/02/22-rdf-syntax-ns#JSON>`;

/** The spine of line `n` of the fixture's main file, as sorted N-Triples lines. */
function spineOf(n: number): { lines: string[]; references: string[] } {
  const text = LINES[n - 1];
  const read = readLine({ lineNo: n, offset: 0, byteLength: 0, text, terminated: true });
  assert.ok(read.kind === 'record');
  const event = eventIri('local', read.record, S1, n);
  const out = emitSpine(read, event, { soul: 'local', transcript: T, lineNo: n, offset: 0 });
  return {
    lines: out.triples.map((t: Triple) => `${t.s} ${t.p} ${t.o}`).sort(),
    // A reference's literal (` | weave:xId`) states the id instead where it resolves to nothing in the session.
    references: out.references.map((r) => `${r.subject} ${r.predicate} ${r.space}:${r.id}${r.literal ? ` | ${r.literal}` : ''}`),
  };
}

const ENV = (s: string, ts: string) => [
  `${s} ${W('timestamp')} "${ts}"^^<http://www.w3.org/2001/XMLSchema#dateTime>`,
  `${s} ${W('cwd')} "/home/ada/weave-demo"`,
  `${s} ${W('cliVersion')} "2.1.119"`,
  `${s} ${W('gitBranch')} "main"`,
  `${s} ${W('sessionNickname')} "tidy-purple-otter"`,
  `${s} ${W('userType')} "external"`,
  `${s} ${W('entrypoint')} "cli"`,
  `${s} ${W('recordSessionId')} "${S1}"`,
  `${s} ${W('isSidechain')} ${BOOL(false)}`,
];

test('a typed prompt: a user turn with one text block at order 0', () => {
  const u = `<urn:soul:local:Weave/Turn/${S1}/u-0001>`;
  const b = `<urn:soul:local:Weave/ContentBlock/${S1}/u-0001/0>`;
  const c = `<urn:soul:local:Weave/Content/ContentBlock/${S1}/u-0001/0/text>`;
  const { lines, references } = spineOf(2);
  assert.deepEqual(
    lines,
    [
      `${T} ${W('hasEvent')} ${u}`,
      `${u} ${TYPE} ${W('Event')}`,
      `${u} ${TYPE} ${W('Turn')}`,
      `${u} ${TYPE} ${W('UserTurn')}`,
      // Its record type is its class's (weave:recordTypeName); its role is stated, as the card draws it.
      `${u} ${W('role')} "user"`,
      `${u} ${W('sourceLine')} ${INT(2)}`,
      `${u} ${W('sourceOffset')} ${INT(0)}`,
      `${u} ${W('eventId')} "u-0001"`,
      `${u} ${W('promptId')} "p-0001"`,
      `${u} ${W('originKind')} "human"`,
      `${u} ${W('origin')} ${JSONL('{"kind":"human"}')}`,
      `${u} ${W('hasContentBlock')} ${b}`,
      `${b} ${W('blockOrder')} ${INT(0)}`,
      `${b} ${TYPE} ${W('ContentBlock')}`,
      `${b} ${TYPE} ${W('TextBlock')}`,
      `${b} ${W('text')} "Please list the files in src/ and fix the typo in README.md"`,
      // The text's content state (src/emit/content.ts): kept whole, 59 bytes, found at /message/content,
      // not where a block's text usually is (/message/content/0/text), so it has a Content node.
      `${b} ${W('hasContent')} ${c}`,
      `${c} ${TYPE} ${W('Content')}`,
      `${c} ${W('contentOf')} ${W('text')}`,
      `${c} ${W('contentState')} ${W('ContentAvailable')}`,
      `${c} ${W('byteLength')} ${INT(59)}`,
      `${c} ${W('jsonPointer')} "/message/content"`,
      ...ENV(u, '2026-11-02T09:00:00.000Z'),
    ].sort(),
  );
  assert.deepEqual(references, []);
});

test('the last fragment of a streamed response: tool use, usage with its four counts and the one-hour part of its cache writes, kept extras', () => {
  const a = `<urn:soul:local:Weave/Turn/${S1}/a-0003>`;
  const b = `<urn:soul:local:Weave/ContentBlock/${S1}/a-0003/0>`;
  // A usage is named by its session and what it says, so fragments repeating it share it.
  const usage = JSON.parse(LINES[4]).message.usage;
  const u = `<urn:soul:local:Weave/Usage/${S1}/${createHash('sha1').update(JSON.stringify(usage)).digest('hex').slice(0, 20)}>`;
  const { lines, references } = spineOf(5);
  assert.deepEqual(
    lines.filter(
      (l) =>
        l.startsWith(b) ||
        l.startsWith(u) ||
        l.includes('#model>') ||
        l.includes('#messageId>') ||
        l.includes('#requestId>') ||
        l.includes('#stopReason>') ||
        l.includes('#extraJson>') ||
        l.includes('#parentEventId>'),
    ),
    [
      `${a} ${W('extraJson')} ${JSONL('{"message":{"container":null}}')}`,
      `${a} ${W('messageId')} "msg_0001"`,
      `${a} ${W('model')} "claude-opus-4-7"`,
      `${a} ${W('requestId')} "req_0001"`,
      `${a} ${W('stopReason')} "tool_use"`,
      `${b} ${TYPE} ${W('ContentBlock')}`,
      `${b} ${TYPE} ${W('ToolUseBlock')}`,
      `${b} ${W('blockOrder')} ${INT(0)}`,
      // Its caller (the model itself), stated as the card draws it and so not kept in extraJson.
      `${b} ${W('caller')} "direct"`,
      // Kept whole where a tool use's input usually is: no Content node.
      `${b} ${W('toolInput')} ${JSONL('{"command":"ls src/"}')}`,
      `${b} ${W('toolName')} "Bash"`,
      `${b} ${W('toolUseId')} "toolu_0001"`,
      `${u} ${TYPE} ${W('Usage')}`,
      `${u} ${W('cacheCreationInputTokens')} ${INT(10)}`,
      // Its one-hour part (none), from usage.cache_creation.
      `${u} ${W('cacheCreation1hInputTokens')} ${INT(0)}`,
      `${u} ${W('cacheReadInputTokens')} ${INT(2000)}`,
      `${u} ${W('inputTokens')} ${INT(100)}`,
      `${u} ${W('outputTokens')} ${INT(42)}`,
      `${u} ${W('usageJson')} ${JSONL(JSON.stringify({ input_tokens: 100, output_tokens: 42, cache_creation_input_tokens: 10, cache_read_input_tokens: 2000, service_tier: 'standard', cache_creation: { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 0 } }))}`,
    ].sort(),
  );
  assert.deepEqual(references, [`${a} ${W('parentEvent')} event:a-0002 | ${W('parentEventId')}`]);
});

test('an error result with a text and an image nested in order, answering its use by id', () => {
  const r = `<urn:soul:local:Weave/ContentBlock/${S1}/u-0003/0>`;
  const text = `<urn:soul:local:Weave/ContentBlock/${S1}/u-0003/0/0>`;
  const image = `<urn:soul:local:Weave/ContentBlock/${S1}/u-0003/0/1>`;
  const { lines, references } = spineOf(8);
  assert.deepEqual(
    lines.filter((l) => l.startsWith(r) || l.startsWith(text) || l.startsWith(image)),
    [
      `${r} ${TYPE} ${W('ContentBlock')}`,
      `${r} ${TYPE} ${W('ToolResultBlock')}`,
      `${r} ${W('blockOrder')} ${INT(0)}`,
      `${r} ${W('hasContentBlock')} ${image}`,
      `${r} ${W('hasContentBlock')} ${text}`,
      `${r} ${W('toolIsError')} ${BOOL(true)}`,
      // Its use's id, as the card pairs them, beside the toolUseRef link the session resolves.
      `${r} ${W('toolUseId')} "toolu_0002"`,
      `${text} ${TYPE} ${W('ContentBlock')}`,
      `${text} ${TYPE} ${W('TextBlock')}`,
      `${text} ${W('blockOrder')} ${INT(0)}`,
      `${text} ${W('text')} "Error: no such file"`,
      `${text} ${W('hasContent')} <urn:soul:local:Weave/Content/ContentBlock/${S1}/u-0003/0/0/text>`,
      `${image} ${TYPE} ${W('ContentBlock')}`,
      `${image} ${TYPE} ${W('ImageBlock')}`,
      `${image} ${W('blockOrder')} ${INT(1)}`,
      `${image} ${W('byteLength')} ${INT(7)}`,
      `${image} ${W('mediaType')} "image/png"`,
      // printf PNGDATA | sha256sum
      `${image} ${W('sha256')} "2d4566582844690f8634a8b2534ea5221560038c6c0650c99140759bad603ae2"`,
      `${image} ${W('sourceType')} "base64"`,
      `${image} ${W('hasContent')} <urn:soul:local:Weave/Content/ContentBlock/${S1}/u-0003/0/1/mediaData>`,
    ].sort(),
  );
  assert.ok(lines.includes(`<urn:soul:local:Weave/Turn/${S1}/u-0003> ${W('toolUseResult')} ${JSONL('"Error: no such file"')}`));
  assert.deepEqual(references, [
    `<urn:soul:local:Weave/Turn/${S1}/u-0003> ${W('parentEvent')} event:a-0004 | ${W('parentEventId')}`,
    `<urn:soul:local:Weave/Turn/${S1}/u-0003> ${W('sourceToolAssistant')} event:a-0004 | ${W('sourceToolAssistantId')}`,
    // No literal to fall back on: the block states its toolUseId whether or not the link resolves.
    `${r} ${W('toolUseRef')} toolUse:toolu_0002`,
  ]);
});

test('an unknown block type and an unknown field are kept whole', () => {
  const { lines } = spineOf(13);
  const b = `<urn:soul:local:Weave/ContentBlock/${S1}/u-0005/1>`;
  assert.deepEqual(
    lines.filter((l) => l.startsWith(b)),
    [
      `${b} ${TYPE} ${W('ContentBlock')}`,
      `${b} ${W('blockJson')} ${JSONL('{"type":"future_block","payload":{"x":1}}')}`,
      `${b} ${W('blockOrder')} ${INT(1)}`,
      `${b} ${W('blockType')} "future_block"`,
    ],
  );
  assert.ok(lines.includes(`<urn:soul:local:Weave/Turn/${S1}/u-0005> ${W('extraJson')} ${JSONL('{"newField":7}')}`));
});

test('metadata records without a uuid get an id from their stream and line', () => {
  const { lines } = spineOf(1);
  const e = `<urn:soul:local:Weave/Event/${S1}/L1>`;
  assert.ok(lines.includes(`${T} ${W('hasEvent')} ${e}`));
  // Its type is its class's (PermissionModeEvent weave:recordTypeName "permission-mode").
  assert.ok(lines.includes(`${e} ${TYPE} ${W('PermissionModeEvent')}`));
  assert.ok(!lines.some((l) => l.includes(W('recordType'))));
});

test('IRIs and literals stay well-formed whatever the data holds', () => {
  assert.equal(instanceIri('local', 'File', '/tmp/my file#1 <x>'), '<urn:soul:local:Weave/File/%2Ftmp%2Fmy%20file%231%20%3Cx%3E>');
  assert.equal(iri('http://x/a b'), '<http://x/a\\u0020b>');
  assert.equal(str('a "q"\n\\ \u0001 \ud800'), '"a \\"q\\"\\n\\\\ \\u0001 \ufffd"');
  const { lines } = spineOf(7);
  assert.ok(lines.includes(`<urn:soul:local:Weave/ContentBlock/${S1}/a-0004/0> ${W('toolName')} "mcp__my server__do#it"`));
});
