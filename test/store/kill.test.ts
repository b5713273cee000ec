import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFile, cp, mkdir, readdir, readFile, rm, stat, truncate, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { ingest } from '../../src/ingest.ts';
import { detect } from '../../src/readers/detect.ts';
import { checkStore } from '../../src/store/check.ts';
import { filesOf, readManifest } from '../../src/store/manifest.ts';
import { ONTOLOGY_GRAPH } from '../../src/rdf/vocab.ts';
import { openStore, type OxStore } from '../../src/store/store.ts';
import { lockStore } from '../../src/store/writer.ts';
import { verify } from '../../src/verify.ts';
import { FIXTURES, REPO, removeDir, tempDir } from '../helpers.ts';
import { canonicalNQuads, type RdfTerm } from '../nquads.ts';
import { SECRET_KEY_FILE } from '../../src/readers/secret/key.ts';

/**
 * kill -9 at random moments of a real `weave ingest`, of `weave ingest --watch` while the sources
 * grow, and of `weave serve` taking a write through the endpoint. For an ingest: whatever the moment, every graph of the
 * store, as a reader opens it, is its previous version or its new one (compared as canonical
 * N-Quads with stores built from the two states alone), never a mix; and the next writer finds
 * the store whole: no temporary or unnamed file left, every quad count the manifest gives, and
 * `weave verify` clean.
 *
 * WEAVE_KILLS sets how many kills (default 48, for the suite's ten minutes; it was 100),
 * WEAVE_KILL_LANES how many run at once (3); the
 * delays are drawn from the seed printed in the test's name, which WEAVE_KILL_SEED repeats. A
 * longer run: WEAVE_KILLS=1000 (a kill costs about a second in three lanes, most of it starting
 * Node; the child runs the built command line, as bin/weave does, which took a third off the
 * test's CPU where it loaded the TypeScript through tsx).
 */

const KILLS = Number(process.env.WEAVE_KILLS ?? 48);
/** Of the kills, a quarter fall on writes through the endpoint, a quarter on a watch, the rest on ingest runs. */
const ENDPOINT_KILLS = Math.round(KILLS / 4);
const WATCH_KILLS = Math.round(KILLS / 4);
const INGEST_KILLS = KILLS - ENDPOINT_KILLS - WATCH_KILLS;
const SEED = Number(process.env.WEAVE_KILL_SEED ?? Date.now() % 1e6);
const LANES = Number(process.env.WEAVE_KILL_LANES ?? 3);
/** The command line as bin/weave runs it (its built copy), so a kill costs what a user's would to start. */
const CHILD = join(REPO, 'test', 'store', 'kill-child.mjs');
const PROJECT_B = '-home-grace-weave-server';

/** A small deterministic generator (mulberry32), so a failing run can be repeated by its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Canonical N-Quads of every named graph of a store (the ontology aside), by graph. */
function graphsOf(store: OxStore): Map<string, string> {
  const out = new Map<string, RdfTerm[]>();
  for (const q of store.match(null, null, null, null)) {
    if (q.graph.termType !== 'NamedNode' || q.graph.value === ONTOLOGY_GRAPH) continue;
    out.set(q.graph.value, [...(out.get(q.graph.value) ?? []), q as unknown as RdfTerm]);
  }
  return new Map([...out].map(([g, quads]) => [g, canonicalNQuads(quads).join('\n')]));
}

/**
 * Each graph's version as a reader of the store takes it: the files its manifest entry names, as
 * much of each as named, and a digest of those bytes, so equal versions are equal bytes.
 */
async function versionsOf(dir: string): Promise<Map<string, string>> {
  const versions = new Map<string, string>();
  for (const [graph, entry] of Object.entries((await readManifest(dir))!.graphs)) {
    const digest = createHash('sha1');
    for (const { file, bytes } of filesOf(entry)) {
      const named = (await readFile(join(dir, file))).subarray(0, bytes);
      assert.equal(named.length, bytes, `${file}: shorter than named`);
      digest.update(named);
    }
    versions.set(graph, JSON.stringify([filesOf(entry), entry.quads, digest.digest('hex')]));
  }
  return versions;
}

/** Sources in state A (spine and server fixtures), then moved on to state B: appends, a rewrite, new sessions. */
async function sources(root: string, state: 'A' | 'B'): Promise<void> {
  if (state === 'A') {
    await cp(join(FIXTURES, 'spine'), root, { recursive: true });
    await cp(join(FIXTURES, 'server'), root, { recursive: true });
    return;
  }
  // An appended turn, as a live session grows.
  const b = join(root, PROJECT_B, '44444444-4444-4444-8444-444444444444.jsonl');
  const line = JSON.parse((await readFile(b, 'utf8')).split('\n')[1]);
  await appendFile(
    b,
    `${JSON.stringify({ ...line, parentUuid: 't-0002', uuid: 't-0003', message: { ...line.message, id: 'msg_t3', content: [{ type: 'text', text: 'More.' }] } })}\n`,
  );
  // The pending last line completed, and a session that is new.
  await appendFile(join(root, '-home-ada-weave-demo', '22222222-2222-4222-8222-222222222222.jsonl'), '\n');
  await cp(join(FIXTURES, 'readers'), root, { recursive: true });
}

test(`kill -9 at ${INGEST_KILLS} random moments of weave ingest (seed ${SEED}): every graph its previous or its new version, and the next writer finds the store whole`, async (t) => {
  const work = await tempDir('weave-kill-');
  const root = join(work, 'projects');
  const storeA = join(work, 'store-a');
  const storeB = join(work, 'store-b');
  try {
    await mkdir(root);
    await sources(root, 'A');
    await ingest([root], { storeDir: storeA, soul: 'local' });
    await detect({ storeDir: storeA });
    await sources(root, 'B');
    // What an uninterrupted run makes of state A: built the way the killed runs go (A's store, then B).
    await cp(storeA, storeB, { recursive: true });
    await ingest([root], { storeDir: storeB, soul: 'local' });
    await detect({ storeDir: storeB, onlyStale: true });
    const before = await versionsOf(storeA);
    const after = await versionsOf(storeB);
    const graphsAfter = graphsOf((await openStore(storeB)).store);
    const changed = [...after.keys()].filter((g) => before.get(g) !== after.get(g));
    assert.ok(changed.length >= 5, 'state B changes sessions, adds sessions and their readers');

    // How long an uninterrupted run takes, from `go`: the kills fall in it (and a little past it).
    const calibration = join(work, 'store-calibration');
    await cp(storeA, calibration, { recursive: true });
    const span = (await runChild(calibration, root, undefined))!;
    // Kills run in a few lanes at once, each on its own store: a child mostly waits for the disk.
    let midRun = 0;
    const lane = async (index: number) => {
      const draw = random(SEED + index);
      const store = join(work, `store-${index}`);
      for (let kill = index; kill < INGEST_KILLS; kill += LANES) {
        await rm(store, { recursive: true, force: true });
        await cp(storeA, store, { recursive: true });
        const delay = draw() * span * 1.1;
        if ((await runChild(store, root, delay)) === undefined) midRun++;
        const at = `kill ${kill} at ${delay.toFixed(0)} ms`;

        // As a reader takes it now: each graph is A's version or B's (or not there yet), never a mix.
        for (const [graph, version] of await versionsOf(store))
          assert.ok(
            version === before.get(graph) || version === after.get(graph),
            `${at}: ${graph} is neither its previous nor its new version`,
          );
        for (const graph of before.keys()) assert.ok((await versionsOf(store)).has(graph), `${at}: ${graph} was lost`);

        // The next writer (this process, taking the lock the child left) finds what the kill left and removes it.
        const notes: string[] = [];
        const lock = await lockStore(store, { onNote: (n) => notes.push(n) });
        try {
          const self = await checkStore(store);
          assert.deepEqual([self.problems, self.notes], [[], []], `${at}: the store once the next writer has the lock`);
          assert.deepEqual(
            (await readdir(join(store, 'graphs'))).filter((n) => n.endsWith('.tmp')),
            [],
            `${at}: temporary files`,
          );
          // Every fifth kill, the next writer runs to the end: the store is then B's, and verifies.
          if (kill % 5 === 4 || kill === INGEST_KILLS - 1) {
            await ingest([root], { storeDir: store, soul: 'local' });
            await detect({ storeDir: store, onlyStale: true });
          }
        } finally {
          await lock.release();
        }
        if (kill % 5 === 4 || kill === INGEST_KILLS - 1) {
          assert.deepEqual(await versionsOf(store), after, `${at}: the versions after the next run`);
          assert.deepEqual(graphsOf((await openStore(store)).store), graphsAfter, `${at}: the graphs after the next run`);
          const report = await verify({ storeDir: store });
          assert.deepEqual([report.ok, report.store.notes], [true, []], `${at}: weave verify`);
        }
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    t.diagnostic(`${INGEST_KILLS} kills, ${midRun} of them before the run ended; an uninterrupted run takes ${span} ms`);
    assert.ok(midRun >= INGEST_KILLS / 2, 'most kills land inside the run');
  } finally {
    await removeDir(work);
  }
});

/**
 * Runs `weave ingest root --store store` in a child; with `killAfter`, kills it (SIGKILL) that
 * many ms after it says `go`. Returns the run's own time when it finished, undefined when killed first.
 */
function runChild(store: string, root: string, killAfter: number | undefined): Promise<number | undefined> {
  const child = spawn(process.execPath, [CHILD, 'ingest', root, '--store', store], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let armed = killAfter !== undefined;
  child.stderr!.on('data', (d) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (armed && out.startsWith('go\n')) {
        armed = false;
        setTimeout(() => child.kill('SIGKILL'), killAfter);
      }
    });
    child.on('exit', (code, signal) => {
      const done = /done (\d+)/.exec(out);
      if (signal === 'SIGKILL') return resolve(done ? Number(done[1]) : undefined);
      if (code !== 0) return reject(new Error(`the child failed (${code}): ${err}`));
      resolve(done ? Number(done[1]) : 0);
    });
  });
}

const TOKEN = 'kill-test-token';
const S1 = 'urn:soul:local:Weave/graph/11111111-1111-4111-8111-111111111111';
const S2 = 'urn:soul:local:Weave/graph/22222222-2222-4222-8222-222222222222';
/** One request that changes three graphs: texts out of one session, a triple into another, and a new graph. */
const UPDATE = `DELETE { GRAPH <${S1}> { ?b weave:text ?x } } INSERT { GRAPH <${S2}> { <urn:kill:note> rdfs:comment "written" } GRAPH <urn:kill:new> { <urn:kill:a> <urn:kill:b> "c" } } WHERE { GRAPH <${S1}> { ?b weave:text ?x } }`;

test(`kill -9 at ${ENDPOINT_KILLS} random moments of a write through the endpoint (seed ${SEED}): the store as it was before the write or after it, whole`, async (t) => {
  const work = await tempDir('weave-kill-');
  const storeA = join(work, 'store-a');
  const storeB = join(work, 'store-b');
  try {
    await ingest([join(FIXTURES, 'spine')], { storeDir: storeA, soul: 'local' });
    await cp(storeA, storeB, { recursive: true });
    const span = (await serveAndWrite(storeB, undefined))!;
    const before = await versionsOf(storeA);
    const after = await versionsOf(storeB);
    assert.deepEqual([...after.keys()].filter((g) => before.get(g) !== after.get(g)).sort(), [S1, S2, 'urn:kill:new'].sort());

    let midWrite = 0;
    const lane = async (index: number) => {
      const draw = random(SEED + 100 + index);
      const store = join(work, `store-${index}`);
      for (let kill = index; kill < ENDPOINT_KILLS; kill += LANES) {
        await rm(store, { recursive: true, force: true });
        await cp(storeA, store, { recursive: true });
        const delay = draw() * span * 1.2;
        if ((await serveAndWrite(store, delay)) === undefined) midWrite++;
        const at = `kill ${kill} at ${delay.toFixed(0)} ms`;
        const seen = await versionsOf(store);
        const whole = (state: Map<string, string>) => seen.size === state.size && [...state].every(([g, v]) => seen.get(g) === v);
        assert.ok(whole(before) || whole(after), `${at}: the store is neither as it was before the write nor after it`);
        const lock = await lockStore(store);
        try {
          const self = await checkStore(store);
          assert.deepEqual([self.problems, self.notes], [[], []], `${at}: the store once the next writer has the lock`);
          assert.deepEqual(
            (await readdir(join(store, 'graphs'))).filter((n) => n.endsWith('.tmp')),
            [],
            `${at}: temporary files`,
          );
        } finally {
          await lock.release();
        }
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    t.diagnostic(`${ENDPOINT_KILLS} kills, ${midWrite} of them before the write was answered; an uninterrupted write takes ${span} ms`);
    assert.ok(midWrite >= ENDPOINT_KILLS / 2, 'most kills land before the answer');
  } finally {
    await removeDir(work);
  }
});

/**
 * Starts `weave serve` over `store` (writes on) in a child, sends UPDATE once it listens, and, with
 * `killAfter`, kills the child that many ms after sending. Returns the time to the answer when it
 * came, undefined when the child was killed first.
 */
async function serveAndWrite(store: string, killAfter: number | undefined): Promise<number | undefined> {
  const child = spawn(
    process.execPath,
    [CHILD, 'serve', '--no-ingest', '--allow-update', '--token', TOKEN, '--port', '0', '--workers', '1', '--store', store],
    { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      const found = /listening on (\S+) /.exec(out);
      if (found) resolve(found[1]);
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before it listened`)));
  });
  const sent = performance.now();
  const answer = fetch(`${url}sparql`, {
    method: 'POST',
    headers: { 'content-type': 'application/sparql-update', authorization: `Bearer ${TOKEN}` },
    body: UPDATE,
  }).then(
    async (res) => {
      assert.equal(res.status, 204, await res.text());
      return performance.now() - sent;
    },
    () => undefined,
  );
  if (killAfter !== undefined) setTimeout(() => child.kill('SIGKILL'), killAfter);
  const took = await answer;
  // Killed or not, the child ends here: an answered write is on disk before the answer.
  if (killAfter === undefined || took !== undefined) child.kill('SIGKILL');
  await exited;
  return took === undefined ? undefined : Math.round(took);
}

test(`kill -9 at ${WATCH_KILLS} random moments of weave ingest --watch while the sources grow (seed ${SEED}): the next writer finds the store whole, and carries it on to the graph of one read`, async (t) => {
  const work = await tempDir('weave-kill-');
  try {
    let midWatch = 0;
    const lane = async (index: number) => {
      const draw = random(SEED + 200 + index);
      const root = join(work, `watch-${index}`, 'projects');
      const storeA = join(work, `watch-${index}`, 'store-a');
      const store = join(work, `watch-${index}`, 'store');
      await mkdir(root, { recursive: true });
      await sources(root, 'A');
      await ingest([root], { storeDir: storeA, soul: 'local' });
      await detect({ storeDir: storeA });
      // The files state B grows, as they are in state A: a kill's next round starts from them again.
      const grown = [
        '-home-ada-weave-demo/22222222-2222-4222-8222-222222222222.jsonl',
        `${PROJECT_B}/44444444-4444-4444-8444-444444444444.jsonl`,
      ].map((f) => join(root, f));
      const sizes = await Promise.all(grown.map(async (f) => stat(f)));
      const once = join(work, `watch-${index}`, 'once');
      await sources(root, 'B');
      // The same secret key as the store carried on (a store's key is its own; the digests depend on it).
      await mkdir(once, { recursive: true });
      await cp(join(storeA, SECRET_KEY_FILE), join(once, SECRET_KEY_FILE));
      await ingest([root], { storeDir: once, soul: 'local' });
      await detect({ storeDir: once });
      const expected = graphsOf((await openStore(once)).store);
      const backToA = async () => {
        for (const [i, f] of grown.entries()) {
          await truncate(f, sizes[i].size);
          await utimes(f, sizes[i].atime, sizes[i].mtime);
        }
        await rm(join(root, '-home-ada-weave-readers'), { recursive: true, force: true });
      };
      for (let kill = index; kill < WATCH_KILLS; kill += LANES) {
        await backToA();
        await rm(store, { recursive: true, force: true });
        await cp(storeA, store, { recursive: true });
        // The three changes of state B come while the watch runs; the kill comes any time in it.
        const changes = [0, 1, 2].map(() => draw() * 1500).sort((a, b) => a - b);
        const killAt = draw() * 2500;
        const at = `kill ${kill} at ${killAt.toFixed(0)} ms (changes at ${changes.map((c) => c.toFixed(0)).join(', ')} ms)`;
        const child = spawn(process.execPath, [CHILD, 'ingest', root, '--store', store, '--watch'], {
          cwd: REPO,
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        await new Promise<void>((resolve) => child.stdout!.once('data', () => resolve()));
        const started = performance.now();
        const wait = (until: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, until - (performance.now() - started))));
        const steps = [
          async () => {
            const b = grown[1];
            const line = JSON.parse((await readFile(b, 'utf8')).split('\n')[1]);
            await appendFile(
              b,
              `${JSON.stringify({ ...line, parentUuid: 't-0002', uuid: 't-0003', message: { ...line.message, id: 'msg_t3', content: [{ type: 'text', text: 'More.' }] } })}\n`,
            );
          },
          () => appendFile(grown[0], '\n'),
          () => cp(join(FIXTURES, 'readers'), root, { recursive: true }),
        ];
        const killing = wait(killAt).then(() => child.kill('SIGKILL'));
        for (const [i, step] of steps.entries()) {
          await wait(changes[i]);
          await step();
        }
        await killing;
        await exited;
        if (killAt < 1500 + 500) midWatch++;

        // The next writer finds what the kill left, removes it, and carries the store on from there.
        const lock = await lockStore(store);
        try {
          const self = await checkStore(store);
          assert.deepEqual([self.problems, self.notes], [[], []], `${at}: the store once the next writer has the lock`);
          await ingest([root], { storeDir: store, soul: 'local' });
          await detect({ storeDir: store, onlyStale: true });
        } finally {
          await lock.release();
        }
        assert.deepEqual(
          graphsOf((await openStore(store)).store),
          expected,
          `${at}: the graphs, carried on, against one read of the same files`,
        );
      }
    };
    await Promise.all(Array.from({ length: LANES }, (_, i) => lane(i)));
    t.diagnostic(`${WATCH_KILLS} kills, ${midWatch} of them while the sources were still growing or just after`);
  } finally {
    await removeDir(work);
  }
});
