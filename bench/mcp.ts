/**
 * `weave mcp` as an agent meets it: `node --import tsx bench/mcp.ts STORE [--serve]` starts
 * `weave mcp --store STORE` as a subprocess, speaks to it through the SDK's own client over
 * stdio, asks each tool one question and prints the question, the wall time of the call and the
 * start of the answer: a transcript; then asks them all again and prints both rounds' times.
 * With --serve a `weave serve --no-ingest` is started for the store first (and stopped after),
 * so the tools ask it, as they do on a machine where one runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const [store, flag] = process.argv.slice(2);
if (!store) throw new Error('usage: node --import tsx bench/mcp.ts STORE [--serve]');
const env = { ...(process.env as Record<string, string>), WEAVE_NO_DAEMON: '1' };
const SHOWN = Number(process.env.BENCH_MCP_CHARS ?? 600);

async function startServer(): Promise<ChildProcess> {
  const server = spawn(join(REPO, 'bin', 'weave'), ['serve', '--no-ingest', '--port', '0', '--store', store], { env, stdio: 'ignore' });
  for (;;) {
    const run = await readFile(join(store, 'server.json'), 'utf8').catch(() => '');
    if (run.includes(`"pid": ${server.pid}`)) {
      const { url } = JSON.parse(run) as { url: string };
      // Up once its query worker has the store open.
      while ((await fetch(`${url}healthz`).then((r) => r.json() as Promise<{ store?: string }>)).store !== 'ready')
        await new Promise((r) => setTimeout(r, 200));
      return server;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

const server = flag === '--serve' ? await startServer() : undefined;
process.on('exit', () => server?.kill());
const transport = new StdioClientTransport({
  command: process.execPath,
  args: ['--import', 'tsx', join(REPO, 'src', 'cli', 'main.ts'), 'mcp', '--store', store],
  cwd: REPO,
  env,
  stderr: 'inherit',
});
const client = new Client({ name: 'weave-bench', version: '0' });
let t0 = performance.now();
await client.connect(transport);
console.log(
  `connected in ${(performance.now() - t0).toFixed(0)} ms; tools: ${(await client.listTools()).tools.map((t) => t.name).join(', ')}`,
);

/** What the script reads back from answers to ask its next question. */
interface Answer {
  sessions?: { session: string }[];
  hits?: { iri: string }[];
}

/** Each call's wall time, by round: the first round prints the transcript, the second only times. */
const times: { name: string; ms: number[] }[] = [];
let round = 0;

const ask = async (name: string, args: Record<string, unknown>, at: number) => {
  t0 = performance.now();
  const result = await client.callTool({ name, arguments: args });
  const ms = performance.now() - t0;
  times[at] ??= { name, ms: [] };
  times[at].ms.push(ms);
  const text = (result.content as { text: string }[])[0].text;
  if (round === 0)
    console.log(
      `\n→ ${name} ${JSON.stringify(args)}\n← ${ms.toFixed(0)} ms${result.isError ? ' (tool error)' : ''}, ${text.length} chars: ${text.slice(0, SHOWN)}${text.length > SHOWN ? ' …' : ''}`,
    );
  return JSON.parse(result.isError ? '{}' : text) as Answer;
};

const questions = async () => {
  // The first call waits for the store to open when no server runs.
  await ask('sparql', { query: 'ASK { ?s a weave:Session }' }, 0);
  const sessions = await ask('sessions', { limit: 3 }, 1);
  const hits = await ask('search', { text: 'failing test fix', limit: 3 }, 2);
  const session = sessions.sessions?.[0]?.session;
  await ask('conversation', { session, limit: 3 }, 3);
  await ask('describe', { target: hits.hits?.[0]?.iri ?? session }, 4);
  await ask('usage', { report: 'monthly', limit: 3 }, 5);
  await ask(
    'sparql',
    {
      query:
        'SELECT ?tool (COUNT(*) AS ?calls) WHERE { ?c a weave:ToolCall ; weave:toolRequest/weave:toolName ?tool } GROUP BY ?tool ORDER BY DESC(?calls)',
      limit: 5,
    },
    6,
  );
};
for (round = 0; round < 2; round++) await questions();
console.log(`\nwall time per call (ms), first and second round:`);
for (const { name, ms } of times) console.log(`  ${name.padEnd(13)} ${ms.map((m) => m.toFixed(0).padStart(6)).join(' ')}`);
await client.close();
server?.kill();
