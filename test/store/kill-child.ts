import { run } from '../../src/cli/main.ts';

/**
 * The child the kill test kills: `node --import tsx test/store/kill-child.ts weave-args…` runs one
 * weave command in this process, as bin/weave does, after saying `go` (so the parent counts its
 * random delay from the start of the work, not from Node's start), and says `done <ms>` after.
 */
process.stdout.write('go\n');
const started = performance.now();
const code = await run(process.argv.slice(2));
process.stdout.write(`done ${Math.round(performance.now() - started)}\n`);
process.exitCode = code;
