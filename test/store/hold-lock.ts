import { lockStore } from '../../src/store/writer.ts';

/**
 * A process that takes a store's lock as `weave serve` would and keeps it until it is killed:
 * `node --import tsx test/store/hold-lock.ts DIR`. Prints `locked` once it holds the lock.
 */
const [dir] = process.argv.slice(2);
await lockStore(dir, { command: 'weave serve' });
process.stdout.write('locked\n');
setInterval(() => undefined, 60_000);
