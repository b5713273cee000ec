import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFile, copyFile, mkdir, mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { hostname, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';

import { RemoteStore } from '../../src/store/remote/client.ts';
import { readRemoteConfig } from '../../src/store/remote/config.ts';
import { readManifest } from '../../src/store/manifest.ts';
import { remoteMirror } from '../../src/store/writer.ts';
import { REPO, startTestServer } from '../server/helpers.ts';
import { startVirtuoso, virtuosoMissing, type Virtuoso } from './virtuoso.ts';

/**
 * Two machines feeding one external store (a real Virtuoso): each a data directory of its own
 * (WEAVE_HOME) and its own projects folder, running `weave ingest` at the same time, one under
 * the soul Weave makes for it, one under --soul bob. The figures are the fixtures' own: machine
 * A holds model/split-call (13 lines) and model/tool-joins (7), machine B model/interrupted-tool
 * (16) and model/run-through-attachments (14); every line a record, none blank.
 */

const WEAVE = join(REPO, 'bin', 'weave');
const MODEL = join(REPO, 'fixtures', 'model');
const SPLIT = '20000000-0000-4000-8000-000000000001';
const TOOLS = '30000000-0000-4000-8000-000000000001';
const INFRA = '70000000-0000-4000-8000-000000000001';
const SHOP = '10000000-0000-4000-8000-000000000001';

interface Machine {
  home: string;
  projects: string;
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

function weave(machine: Machine, args: string[]): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(WEAVE, args, { env: { ...process.env, WEAVE_HOME: machine.home } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

async function place(projects: string, fixture: string, project: string, session: string, as = project): Promise<void> {
  await mkdir(join(projects, as), { recursive: true });
  await copyFile(join(MODEL, fixture, project, `${session}.jsonl`), join(projects, as, `${session}.jsonl`));
}

describe('two machines, one external store (Virtuoso)', { skip: virtuosoMissing() }, () => {
  let virtuoso: Virtuoso;
  let base: string;
  let a: Machine;
  let b: Machine;
  let soulA: string;
  let remote: RemoteStore;

  /** The session graphs the store holds, as `soul session` lines, sorted. */
  const sessionGraphs = async () => {
    const answer = await remote.query(
      'SELECT DISTINCT ?g ?id WHERE { GRAPH ?g { ?t weave:sessionId ?id } FILTER(STRENDS(STR(?g), CONCAT("/graph/", ?id))) }',
      ['application/sparql-results+json'],
    );
    const rows = JSON.parse(new TextDecoder().decode(answer.body)).results.bindings as Record<string, { value: string }>[];
    return rows.map((r) => `${/^urn:soul:([^:]+):/.exec(r.g.value)?.[1]} ${r.id.value}`).sort();
  };

  before(async () => {
    virtuoso = await startVirtuoso();
    remote = new RemoteStore({
      format: 'weave-remote/1',
      endpoint: virtuoso.endpoint,
      graphStore: virtuoso.endpoint.replace(/\/sparql$/, '/sparql-graph-crud'),
      tripleTerms: false,
    });
    base = await mkdtemp(join(tmpdir(), 'weave-souls-'));
    a = { home: join(base, 'a'), projects: join(base, 'a-projects') };
    b = { home: join(base, 'b'), projects: join(base, 'b-projects') };
    await place(a.projects, 'split-call', '-home-dev-api', SPLIT);
    await place(a.projects, 'tool-joins', '-home-dev-tools', TOOLS);
    await place(b.projects, 'interrupted-tool', '-home-dev-infra', INFRA);
    await place(b.projects, 'run-through-attachments', '-home-dev-shop', SHOP);
  });
  after(async () => {
    await virtuoso?.stop();
    if (base) await rm(base, { recursive: true, force: true });
  });

  it('two ingests from two souls at the same time both land in full, and verify from each machine passes', async () => {
    const [ranA, ranB] = await Promise.all([
      weave(a, ['ingest', a.projects, '--store', virtuoso.endpoint]),
      weave(b, ['ingest', b.projects, '--store', virtuoso.endpoint, '--soul', 'bob']),
    ]);
    assert.equal(ranA.code, 0, ranA.stderr);
    assert.equal(ranB.code, 0, ranB.stderr);
    // Machine A's soul was made once, kept readable by its user only, and said.
    soulA = (await readFile(join(a.home, 'soul'), 'utf8')).trim();
    assert.match(soulA, /^[a-z0-9-]+-[0-9a-f]{8}$/);
    assert.equal((await stat(join(a.home, 'soul'))).mode & 0o777, 0o600);
    assert.match(ranA.stderr, new RegExp(`this machine's soul is ${soulA} \\(kept in ${join(a.home, 'soul')}\\)`));
    assert.deepEqual(await readdir(b.home).then((names) => names.includes('soul')), false, '--soul bob makes no soul file');

    assert.deepEqual(await sessionGraphs(), [`bob ${SHOP}`, `bob ${INFRA}`, `${soulA} ${SPLIT}`, `${soulA} ${TOOLS}`].sort());
    for (const [machine, lines, files] of [
      [a, 13 + 7, 2],
      [b, 16 + 14, 2],
    ] as const) {
      const verified = await weave(machine, ['verify', '--store', virtuoso.endpoint, '--json']);
      assert.equal(verified.code, 0, verified.stdout + verified.stderr);
      const report = JSON.parse(verified.stdout);
      assert.equal(report.ok, true);
      assert.equal(report.files.length, files);
      assert.equal(
        report.files.reduce((n: number, f: { lines: number; events: number }) => n + f.lines, 0),
        lines,
      );
      assert.equal(
        report.files.reduce((n: number, f: { events: number }) => n + f.events, 0),
        lines,
      );
    }
  });

  it('weave status shows each machine its soul', async () => {
    for (const [machine, soul] of [
      [a, soulA],
      [b, 'bob'],
    ] as const) {
      const status = await weave(machine, ['status', '--store', virtuoso.endpoint, '--json', '--no-daemon']);
      assert.equal(status.code, 0, status.stderr);
      assert.equal(JSON.parse(status.stdout).soul, soul);
      assert.equal(JSON.parse(status.stdout).sessions, 2);
    }
  });

  it('each session graph names the soul, machine and user that wrote it', async () => {
    const answer = await remote.query(
      `SELECT ?g ?soul ?host ?user WHERE { GRAPH ?g { ?session a weave:Session ; prov:wasAttributedTo ?agent .
         ?agent a weave:Soul ; dcterms:identifier ?soul ; weave:hostName ?host ; weave:osUser ?user } } ORDER BY ?g`,
      ['application/sparql-results+json'],
    );
    const rows = (JSON.parse(new TextDecoder().decode(answer.body)).results.bindings as Record<string, { value: string }>[]).map(
      (r) => `${r.g.value} ${r.soul.value} ${r.host.value} ${r.user.value}`,
    );
    const by = `${hostname()} ${userInfo().username}`;
    assert.deepEqual(
      rows,
      [
        `urn:soul:bob:Weave/graph/${SHOP} bob ${by}`,
        `urn:soul:bob:Weave/graph/${INFRA} bob ${by}`,
        `urn:soul:${soulA}:Weave/graph/${SPLIT} ${soulA} ${by}`,
        `urn:soul:${soulA}:Weave/graph/${TOOLS} ${soulA} ${by}`,
      ].sort(),
    );
  });

  it('a session copied to the second machine is held once, under the first soul, and verify from the second passes', async () => {
    // The same file in another project folder on machine B.
    await place(b.projects, 'split-call', '-home-dev-api', SPLIT, '-home-bob-api');
    const ran = await weave(b, ['ingest', b.projects, '--store', virtuoso.endpoint]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      new RegExp(`1 session\\(s\\) \\(${SPLIT}\\) already in the external store, read on another machine: 1 under soul ${soulA}`),
    );
    assert.match(ran.stdout, /0 sessions read \(2 unchanged\).*1 held under another soul/s);
    assert.deepEqual(await sessionGraphs(), [`bob ${SHOP}`, `bob ${INFRA}`, `${soulA} ${SPLIT}`, `${soulA} ${TOOLS}`].sort());
    const verified = await weave(b, ['verify', '--store', virtuoso.endpoint, '--json']);
    assert.equal(verified.code, 0, verified.stdout + verified.stderr);
    const report = JSON.parse(verified.stdout);
    assert.equal(report.ok, true);
    const files = report.files.map((f: { session: string; lines: number; events: number; inStore: boolean; heldBy?: string }) =>
      [f.session, f.lines, f.events, f.inStore, f.heldBy ?? ''].join(' '),
    );
    assert.deepEqual(files, [`${SHOP} 14 14 true `, `${SPLIT} 13 13 true ${soulA}`, `${INFRA} 16 16 true `]);
    // Its status counts it as held there, its 13 lines not as pending.
    const status = JSON.parse((await weave(b, ['status', '--store', virtuoso.endpoint, '--json', '--no-daemon'])).stdout);
    assert.deepEqual(
      [status.sessions, status.heldElsewhere, status.pending],
      [2, { [soulA]: 1 }, { lines: 0, files: 0, inNew: 0, changed: { files: 0, lines: 0 } }],
    );
    // Read again, it is still left to its soul, and said so.
    const again = await weave(b, ['ingest', b.projects, '--store', virtuoso.endpoint]);
    assert.match(again.stdout, /0 sessions read \(2 unchanged\).*1 held under another soul/s);
    assert.deepEqual(await sessionGraphs(), [`bob ${SHOP}`, `bob ${INFRA}`, `${soulA} ${SPLIT}`, `${soulA} ${TOOLS}`].sort());
  });

  it('weave usage --by person gives each soul its own calls, the copied session counted once', async () => {
    const ran = await weave(b, ['usage', '--by', 'person', '--json', '--store', virtuoso.endpoint]);
    assert.equal(ran.code, 0, ran.stderr);
    const figures = JSON.parse(ran.stdout).persons.map(
      (p: {
        key: string;
        who: string[];
        sessions: number;
        inputTokens: number;
        outputTokens: number;
        cacheCreationTokens: number;
        cacheReadTokens: number;
      }) => [p.key, p.who.join(','), p.sessions, p.inputTokens, p.outputTokens, p.cacheCreationTokens, p.cacheReadTokens].join(' '),
    );
    // Each call's last fragment, from the fixtures: split-call 100+120+130 in, 180+60+25 out,
    // 5000+5300+5400 read; tool-joins 40+60 in, 35+8 out, 900+950 read; interrupted-tool 3 × (30,
    // 15, 2000); run-through-attachments 10+20+30 in, 40+30+12 out, 200 written, 210+400 read.
    const who = `${userInfo().username}@${hostname()}`;
    assert.deepEqual(figures.sort(), [`${soulA} ${who} 2 450 308 0 17550`, `bob ${who} 2 150 127 200 6610`].sort());
    // weave serve in front of the shared store answers the same, for the team's pages.
    const server = await startTestServer(
      { storeDir: join(b.home, 'remote', (await readdir(join(b.home, 'remote')))[0]), soul: 'bob', workers: 1, queueLimit: 8 },
      null,
    );
    try {
      const served = await fetch(`${server.url}usage?by=person`, { headers: { accept: 'application/json' } });
      assert.equal(served.status, 200);
      assert.deepEqual(((await served.json()) as { report: unknown }).report, JSON.parse(ran.stdout));
      assert.equal((await fetch(`${server.url}usage?by=team`)).status, 400);
      const status = (await (await fetch(`${server.url}status`)).json()) as { soul: string; store: { heldElsewhere?: unknown } };
      assert.deepEqual([status.soul, status.store.heldElsewhere], ['bob', { [soulA]: 1 }]);
    } finally {
      await server.stop();
    }
    const projects = await weave(a, ['usage', '--by', 'project', '--json', '--store', virtuoso.endpoint]);
    const byProject = JSON.parse(projects.stdout).projects.map(
      (p: { key: string; sessions: number; outputTokens: number }) => `${p.key} ${p.sessions} ${p.outputTokens}`,
    );
    assert.deepEqual(byProject.sort(), ['-home-dev-api 1 265', '-home-dev-infra 1 45', '-home-dev-shop 1 82', '-home-dev-tools 1 43']);
  });

  it("weave export says how many of the other machine's sessions it leaves out", async () => {
    // Machine A wrote split-call and tool-joins (the copy of split-call on B is held under A); B
    // wrote interrupted-tool and run-through-attachments: each export leaves the other's two out.
    for (const [machine, own] of [
      [a, [SPLIT, TOOLS]],
      [b, [INFRA, SHOP]],
    ] as const) {
      const ran = await weave(machine, ['export', '--format', 'nquads', '--store', virtuoso.endpoint]);
      assert.equal(ran.code, 0, ran.stderr);
      const sessions = new Set([...ran.stdout.matchAll(/<urn:soul:[^:>]+:Weave\/graph\/([0-9a-f-]{36})> \.$/gm)].map((m) => m[1]));
      assert.deepEqual([...sessions].sort(), [...own].sort());
      assert.equal(
        ran.stderr,
        `weave export: 2 sessions other machines wrote into ${new URL(virtuoso.endpoint).origin} are not in the export, which holds this machine's graphs; export them on those machines\n`,
      );
    }
  });

  it('a copy that went on here is read here, so its new lines are not lost', async () => {
    // tool-joins copied to machine B and gone on there: its last line once more (a replayed record).
    await place(b.projects, 'tool-joins', '-home-dev-tools', TOOLS, '-home-bob-tools');
    const file = join(b.projects, '-home-bob-tools', `${TOOLS}.jsonl`);
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    await appendFile(file, `${lines[lines.length - 1]}\n`);
    const ran = await weave(b, ['ingest', b.projects, '--store', virtuoso.endpoint, '--no-detect']);
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /1 session read \(2 unchanged\).*1 held under another soul/s);
    assert.deepEqual(
      await sessionGraphs(),
      [`bob ${SHOP}`, `bob ${INFRA}`, `bob ${TOOLS}`, `${soulA} ${SPLIT}`, `${soulA} ${TOOLS}`].sort(),
    );
    const verified = JSON.parse((await weave(b, ['verify', '--store', virtuoso.endpoint, '--json'])).stdout);
    assert.equal(verified.ok, true);
    const tools = verified.files.find((f: { session: string }) => f.session === TOOLS);
    assert.deepEqual([tools.lines, tools.events, tools.replayed, tools.heldBy], [8, 7, 1, undefined]);
  });

  it("a machine never puts or drops another soul's graphs, nor the default graph", async () => {
    const dir = join(b.home, 'remote', (await readdir(join(b.home, 'remote')))[0]);
    const config = await readRemoteConfig(dir);
    assert.ok(config);
    const manifest = await readManifest(dir);
    assert.equal(manifest?.soul, 'bob');
    const mirror = await remoteMirror(new RemoteStore(config), dir, manifest);
    const theirs = `urn:soul:${soulA}:Weave/graph/${SPLIT}`;
    const count = async () => {
      const answer = await remote.query(`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <${theirs}> { ?s ?p ?o } }`, [
        'application/sparql-results+json',
      ]);
      return Number(JSON.parse(new TextDecoder().decode(answer.body)).results.bindings[0].n.value);
    };
    const held = await count();
    assert.ok(held > 0);
    await assert.rejects(
      mirror.put(theirs, async () => Buffer.from('<urn:w:s> <urn:w:p> <urn:w:o> .\n')),
      {
        message: `PUT of graph ${theirs} refused: the external store is shared, and soul "bob" writes only its own graphs (urn:soul:bob:Weave/…)`,
      },
    );
    await assert.rejects(mirror.remove(theirs), { message: /^DELETE of graph .* refused/ });
    await assert.rejects(
      mirror.put('default', async () => Buffer.from('<urn:w:s> <urn:w:p> <urn:w:o> .\n')),
      { message: /^PUT of graph default refused/ },
    );
    assert.equal(await count(), held);
  });

  it('an external store written as "local" is told what that shares, and how to move', async () => {
    const c: Machine = { home: join(base, 'c'), projects: join(base, 'c-projects') };
    await place(c.projects, 'tool-joins', '-home-dev-tools', TOOLS);
    const first = await weave(c, ['ingest', c.projects, '--store', virtuoso.endpoint, '--soul', 'local', '--no-detect']);
    assert.equal(first.code, 0, first.stderr);
    const again = await weave(c, ['ingest', c.projects, '--store', virtuoso.endpoint, '--no-detect']);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stderr,
      /this external store is written under soul "local".*copy remote\.json from this store directory into an empty one/s,
    );
  });

  it("a store's soul is set once: another --soul is refused, with the way on", async () => {
    const ran = await weave(b, ['ingest', b.projects, '--store', virtuoso.endpoint, '--soul', 'carol']);
    assert.equal(ran.code, 1);
    assert.match(
      ran.stderr,
      /was built for soul "bob", not "carol"; a store's soul is set once: drop --soul\/--soul-repo to write as "bob"/,
    );
  });
});
