import { pathToFileURL } from 'node:url';
import { program } from '../../src/cli/compiled.mjs';

/**
 * The child the kill test kills: `node test/store/kill-child.mjs weave-args…` runs one weave
 * command from the built copy of the command line, as bin/weave does, after saying `go` (so the
 * parent counts its random delay from the start of the work, not from Node's start), and says
 * `done <ms>` after.
 */
const built = await program(new URL('../../src/cli/main.ts', import.meta.url));
if (!built) throw new Error('the command line cannot be built here (src/cli/compiled.mjs)');
const { run } = await import(pathToFileURL(built).href);
process.stdout.write('go\n');
const started = performance.now();
const code = await run(process.argv.slice(2));
process.stdout.write(`done ${Math.round(performance.now() - started)}\n`);
process.exitCode = code;
