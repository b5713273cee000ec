import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentPolicy, contentPolicyKey, cutUtf8, DEFAULT_POLICY, measure, resolvePointer, sha256 } from '../../src/emit/content.ts';
import { available, contentOf, emitted, sorted, whole } from './helpers.ts';

/** Content states on fixtures/records/-home-ada-records-demo/88888888-….jsonl, under several policies. */

const S = '88888888-8888-4888-8888-888888888888';
const at = (n: number, policy = DEFAULT_POLICY) => emitted(`${S}.jsonl`, n, S, policy);
const B = (turn: string, order = 0) => `:ContentBlock/${S}/${turn}/${order}`;
// printf … | sha256sum
const SHA = {
  PNGDATA: '2d4566582844690f8634a8b2534ea5221560038c6c0650c99140759bad603ae2',
  signature: '5b46b2821536f0a33e3459a1492479c048f3262e423aaf0536c17b89ac1e6d11', // c2lnbmF0dXJl
  sig: '0e06099dae0f6bf0eea7c11cf8f0295427cf1133d4c4ff5dda3deca53409e1c2', // c2ln
  redacted: '8a5db68aed1b318437f8b39d8392d2891fb418eb0b3a7f877f6e59a472f14e73', // RU5DUllQVEVE
};
const own = (lines: string[], subject: string) =>
  lines.filter((l) => l.startsWith(`${subject} `) || l.startsWith(`:Content/${subject.slice(1)}/`));

test('default policy: text available, images hash_only with size and media type', () => {
  const image = B('c-0001', 1);
  assert.deepEqual(
    own(at(1).triples, image),
    sorted(
      `${image} a weave:ContentBlock`,
      `${image} a weave:ImageBlock`,
      `${image} weave:blockOrder 1`,
      `${image} weave:sourceType "base64"`,
      `${image} weave:mediaType "image/png"`,
      `${image} weave:byteLength 7`,
      `${image} weave:sha256 "${SHA.PNGDATA}"`,
      contentOf(image, 'mediaData', 'HashOnly', 7, '/message/content/1/source/data', { sha256: SHA.PNGDATA }),
    ),
  );
  assert.ok(at(1).triples.includes(`${B('c-0001')} weave:text "What is in this picture?"`));
});

test('default policy: thinking kept, its signature omitted with size and digest', () => {
  const b = B('c-0002');
  assert.deepEqual(
    own(at(2).triples, b),
    sorted(
      `${b} a weave:ContentBlock`,
      `${b} a weave:ThinkingBlock`,
      `${b} weave:blockOrder 0`,
      // Kept whole in its usual place: no Content node (queries/stored-texts.rq gives its figures).
      whole(b, 'text', '"It looks like a test image."'),
      contentOf(b, 'signature', 'Omitted', 12, '/message/content/0/signature', { sha256: SHA.signature }),
    ),
  );
});

test('empty thinking (2.1.79+) is unavailable: the runtime never wrote it; redacted thinking is redacted', () => {
  const empty = B('c-0003');
  assert.deepEqual(
    own(at(3).triples, empty),
    sorted(
      `${empty} a weave:ContentBlock`,
      `${empty} a weave:ThinkingBlock`,
      `${empty} weave:blockOrder 0`,
      contentOf(empty, 'text', 'Unavailable', 0, '/message/content/0/thinking'),
      contentOf(empty, 'signature', 'Omitted', 4, '/message/content/0/signature', { sha256: SHA.sig }),
    ),
  );
  const redacted = B('c-0004');
  assert.deepEqual(
    own(at(4).triples, redacted),
    sorted(
      `${redacted} a weave:ContentBlock`,
      `${redacted} a weave:RedactedThinkingBlock`,
      `${redacted} a weave:ThinkingBlock`, // its superclass, stated
      `${redacted} weave:blockOrder 0`,
      contentOf(redacted, 'text', 'Redacted', undefined, '/message/content/0'),
      contentOf(redacted, 'redactedData', 'Omitted', 12, '/message/content/0/data', { sha256: SHA.redacted }),
    ),
  );
});

test('a text over the limit is cut on a character boundary, with its full length and digest', () => {
  const b = B('c-0005');
  const full = `Résumé: ${'abé'.repeat(40)}`;
  assert.equal(Buffer.byteLength(full), 170);
  // "Résumé: " is 10 bytes and each "abé" 4: at 100 bytes the text ends after 22 "abé" and "ab".
  const policy = contentPolicy([], 100);
  const kept = `Résumé: ${'abé'.repeat(22)}ab`;
  assert.equal(Buffer.byteLength(kept), 100);
  assert.deepEqual(
    own(at(5, policy).triples, b).filter((l) => !l.startsWith(`${b} a `) && !l.includes('blockOrder')),
    sorted(
      `${b} weave:text ${JSON.stringify(kept)}`,
      contentOf(b, 'text', 'Truncated', 170, '/message/content/0/text', { sha256: sha256(Buffer.from(full)), stored: 100 }),
    ),
  );
  // At 101 bytes the cut would split the next "é" in two: it steps back to 100.
  assert.equal(cutUtf8(Buffer.from(full), 101).length, 100);
  assert.equal(cutUtf8(Buffer.from(full), 102).toString(), `Résumé: ${'abé'.repeat(23)}`);
  assert.equal(cutUtf8(Buffer.from('é'), 1).length, 0);
});

test('a JSON value over the limit is stored as the start of its JSON text, a plain string', () => {
  const policy = contentPolicy(['signature=keep'], 20);
  const S5 = '55555555-5555-4555-8555-555555555555';
  const result = emitted(`${S5}.jsonl`, 8, S5, policy).triples;
  const json =
    '{"stdout":"ok 1","stderr":"","interrupted":false,"isImage":false,"persistedOutputPath":"/home/ada/.claude/projects/-home-ada-records-demo/55555555-5555-4555-8555-555555555555/tool-results/b5001.txt","persistedOutputSize":61600}';
  assert.ok(result.includes(`:Turn/${S5}/m-0003 weave:toolUseResult ${JSON.stringify(json.slice(0, 20))}`));
  assert.ok(result.includes(`:Content/Turn/${S5}/m-0003/toolUseResult weave:contentState weave:ContentTruncated`));
  assert.ok(result.includes(`:Content/Turn/${S5}/m-0003/toolUseResult weave:sha256 "${sha256(Buffer.from(json))}"`));
  assert.ok(result.includes(`:Content/Turn/${S5}/m-0003/toolUseResult weave:byteLength ${Buffer.byteLength(json)}`));
});

test('options change the policy: keep signatures and images, hash texts, omit tool output', () => {
  const policy = contentPolicy(['signature=keep', 'media=keep', 'thinking=hash'], 0);
  const b = B('c-0002');
  assert.deepEqual(
    own(at(2, policy).triples, b).filter((l) => !l.includes(' a weave:ThinkingBlock') && !l.includes('blockOrder')),
    sorted(
      `${b} a weave:ContentBlock`,
      contentOf(b, 'text', 'HashOnly', 27, '/message/content/0/thinking', { sha256: sha256(Buffer.from('It looks like a test image.')) }),
      available(b, 'signature', '"c2lnbmF0dXJl"', 12, '/message/content/0/signature'),
    ),
  );
  const image = B('c-0001', 1);
  assert.ok(at(1, policy).triples.includes(`${image} weave:mediaData "UE5HREFUQQ=="`));
  assert.ok(at(1, policy).triples.includes(`:Content/ContentBlock/${S}/c-0001/1/mediaData weave:contentState weave:ContentAvailable`));
  assert.deepEqual(contentPolicy(['toolOutput=omit']).modes.toolOutput, 'omit');
  assert.throws(() => contentPolicy(['pictures=keep']), /unknown content kind "pictures"/);
  assert.throws(() => contentPolicy(['media=shrink']), /unknown content mode "shrink"/);
  assert.equal(
    contentPolicyKey(),
    'content(limit=131072;text=keep;thinking=keep;signature=omit;redacted=omit;media=hash;toolInput=keep;toolOutput=keep;toolUseResult=keep;payload=keep)',
  );
});

test('measuring and pointing: UTF-8, JSON text, decoded base64; RFC 6901 pointers', () => {
  assert.equal(measure('é', 'utf8')!.length, 2);
  assert.equal(measure({ a: [1, 'x'] }, 'json')!.toString(), '{"a":[1,"x"]}');
  assert.equal(measure('UE5HREFUQQ==', 'base64')!.toString(), 'PNGDATA');
  assert.equal(measure(7, 'utf8'), undefined);
  const record = { message: { content: [{ type: 'text', text: 'hi' }] }, 'a/b': { '~c': 1 } };
  assert.equal(resolvePointer(record, '/message/content/0/text'), 'hi');
  assert.equal(resolvePointer(record, '/a~1b/~0c'), 1);
  assert.equal(resolvePointer(record, '/message/nothing/0'), undefined);
});
