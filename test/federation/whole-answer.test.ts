import assert from 'node:assert/strict';
import { test } from 'node:test';
import { WholeAnswer } from '../../src/federation/whole-answer.ts';

const JSON_TYPE = 'application/sparql-results+json; charset=utf-8';
const XML_TYPE = 'application/sparql-results+xml';

/** Whether `text`, fed in chunks of `size` bytes, is a whole answer of `type`. */
function whole(type: string | null, text: string, size = 3): boolean {
  const answer = new WholeAnswer(type);
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) answer.feed(bytes.subarray(i, i + size));
  return answer.whole;
}

test('JSON results are whole when every brace and bracket outside strings is closed', () => {
  const results = '{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"literal","value":"a } ] \\" { [ é"}}]}}\n';
  assert.equal(whole(JSON_TYPE, results), true);
  assert.equal(whole(JSON_TYPE, '{"head":{},"boolean":false}'), true);
  // Stopped after a whole solution, inside a string (whose braces count for nothing), and before anything.
  assert.equal(whole(JSON_TYPE, '{"head":{"vars":["s"]},"results":{"bindings":[{"s":{"type":"uri","value":"urn:a"}}'), false);
  assert.equal(whole(JSON_TYPE, results.slice(0, results.indexOf('a } ]') + 4)), false);
  assert.equal(whole(JSON_TYPE, ''), false);
});

test('XML results are whole when they end with the closing root tag; other types are not judged', () => {
  const xml =
    '<?xml version="1.0"?>\n<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head/><results><result/></results></sparql>\n';
  assert.equal(whole(XML_TYPE, xml), true);
  assert.equal(whole(XML_TYPE, '<r:sparql xmlns:r="http://www.w3.org/2005/sparql-results#"><r:boolean>true</r:boolean></r:sparql>'), true);
  assert.equal(whole(XML_TYPE, xml.slice(0, xml.indexOf('</results>'))), false);
  assert.equal(whole('text/turtle', '<urn:a> <urn:b> "'), true);
  assert.equal(whole(null, '{'), true);
});
