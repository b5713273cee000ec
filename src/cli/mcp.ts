import { readFileSync } from 'node:fs';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { NO_DAEMON_HELP, noDaemon } from '../client/daemon.ts';
import { Graph } from '../mcp/graph.ts';
import { weaveMcpServer } from '../mcp/server.ts';
import { DEFAULTS } from '../server/config.ts';
import { CliError, COMMON_HELP, parse, requireStore, soul, storeDir, sayEmitter } from './options.ts';
import { printHelp } from './help.ts';

const HELP = `usage: weave mcp [options]

A Model Context Protocol server on stdin and stdout, for Claude Code and other agents:
  claude mcp add weave -- weave mcp
Tools: search, sparql, conversation, usage, sessions, describe; resources: the ontology, the
glossary and the ready queries (also as prompts). Read-only: updates and SERVICE are refused.
Queries go to the weave serve running for the store, else to its resident server, started in
the background as other commands start it, with the endpoint's guards (depth, size, timeout);
answers are cut to fit a model's context and say how much was left out. Nothing is logged but
one line on stderr; nothing leaves the machine.

options:
  --timeout SECONDS    longest a query may run (default ${DEFAULTS.timeoutSeconds}); past it, it is stopped and
                       the tool answers with an error
  --max-result-mb N    largest result a query may produce before it is cut (default 32)
${NO_DAEMON_HELP}
${COMMON_HELP}
`;

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export async function main(args: string[]): Promise<number> {
  const { values } = parse(args, {
    timeout: { type: 'string' },
    'max-result-mb': { type: 'string' },
    'no-daemon': { type: 'boolean' },
  });
  if (values.help) {
    printHelp(HELP);
    return 0;
  }
  const positive = (name: string, value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!(n > 0)) throw new CliError(`--${name} must be a positive number, not "${value}"`, 2);
    return n;
  };
  const dir = storeDir(values);
  await requireStore(dir);
  // stderr is the client's log: the one place the user may look for it.
  await sayEmitter(dir);
  const graph = await Graph.open({
    storeDir: dir,
    soul: await soul(values, dir),
    timeoutMs: positive('timeout', values.timeout, DEFAULTS.timeoutSeconds) * 1000,
    maxResultBytes: positive('max-result-mb', values['max-result-mb'], 32) * 1e6,
    noDaemon: noDaemon(values),
  });
  const server = weaveMcpServer({ storeDir: dir, soul: await soul(values, dir), graph }, VERSION);
  // stdout is the protocol's: this line, like every other word, goes to stderr.
  process.stderr.write(`weave mcp: serving ${dir} (queries answered ${graph.answeredBy === 'here' ? 'here' : `by ${graph.answeredBy}`})\n`);
  const closed = new Promise<void>((resolve) => {
    process.stdin.once('end', resolve);
    process.stdin.once('close', resolve);
  });
  await server.connect(new StdioServerTransport());
  // The client is gone when stdin ends: the query worker goes with it, or this process would stay.
  await closed;
  await server.close();
  await graph.close();
  return 0;
}
