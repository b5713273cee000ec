import { readdirSync, readFileSync } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { glossaryCommand } from '../cli/glossary.ts';

/**
 * What an agent reads before it asks: the ontology, the glossary (the runtime's words for the
 * model's terms) and the ready queries of queries/, as resources; each ready query also as a
 * prompt that asks the agent to run it with the `sparql` tool and say what it found.
 */

const ONTOLOGY = new URL('../../ontology/weave.ttl', import.meta.url);
const QUERIES = new URL('../../queries/', import.meta.url);

interface ReadyQuery {
  name: string;
  text: string;
  /** Its leading comment, as one line. */
  about: string;
}

function readyQueries(): ReadyQuery[] {
  return readdirSync(QUERIES)
    .filter((f) => f.endsWith('.rq'))
    .sort()
    .map((file) => {
      const text = readFileSync(new URL(file, QUERIES), 'utf8');
      const about = (/^(?:#.*\n)+/.exec(text)?.[0] ?? '').replace(/^#\s?/gm, '').replace(/\s+/g, ' ').trim();
      return { name: file.replace(/\.rq$/, ''), text, about };
    });
}

export function registerLibrary(server: McpServer): void {
  server.registerResource(
    'ontology',
    'weave://ontology',
    {
      title: 'The Weave ontology (Turtle)',
      description: 'Every class and property of the session graph, with comments: what to write SPARQL against.',
      mimeType: 'text/turtle',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/turtle', text: readFileSync(ONTOLOGY, 'utf8') }] }),
  );
  server.registerResource(
    'glossary',
    'weave://glossary',
    {
      title: 'Glossary: the model’s terms in Claude Code’s words',
      description: 'What Claude Code calls each term of the conversation model (talk, run, llm.call, tool, …) and where it writes it.',
      mimeType: 'application/json',
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/json', text: glossaryCommand(['--json']) }] }),
  );
  for (const query of readyQueries()) {
    server.registerResource(
      `query ${query.name}`,
      `weave://queries/${query.name}.rq`,
      { title: `Ready query: ${query.name}`, description: query.about, mimeType: 'application/sparql-query' },
      async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'application/sparql-query', text: query.text }] }),
    );
    server.registerPrompt(query.name, { title: `Ask: ${query.name}`, description: query.about }, () => ({
      description: query.about,
      messages: [
        {
          role: 'user',
          content: {
            type: 'text',
            text: `Run this ready query over my Claude Code history with the weave \`sparql\` tool, then tell me briefly what it shows.\n\n\`\`\`sparql\n${query.text}\`\`\``,
          },
        },
      ],
    }));
  }
}
