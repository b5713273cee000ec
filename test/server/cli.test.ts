import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { REPO, SERVER_FIXTURES } from './helpers.ts';

/**
 * `weave serve` as a user runs it: from bin/weave, and as `npm start` does (package.json's start
 * script, through sh, as npm runs it).
 */

function serve(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const url = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; stderr: ${stderr}`)), 20_000);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/\S+\/) /.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}: ${stderr}`));
    });
  });
  url.catch(() => undefined); // a run that is meant to exit never prints one
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  /** Resolves once stdout has a line matching `pattern`. */
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not printed in 60 s: ${pattern}; stdout: ${stdout}`)), 60_000);
      const look = () => pattern.test(stdout) && (clearTimeout(timer), child.stdout.off('data', look), resolve());
      child.stdout.on('data', look);
      look();
      child.on('exit', () => reject(new Error(`exited before printing ${pattern}: ${stdout}${stderr}`)));
    });
  return { child, url, exited, printed, output: () => ({ stdout, stderr }) };
}

/** A command run to its end: exit code, stdout, stderr. */
function exec(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(command, args, { cwd: REPO, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout, stderr })));
}

async function turnsNow(url: string): Promise<string> {
  const res = await fetch(`${url}sparql?query=${encodeURIComponent('SELECT (COUNT(?t) AS ?n) WHERE { ?t a weave:Turn }')}`, {
    headers: { accept: 'text/csv' },
  });
  return (await res.text()).trim().split('\n')[1];
}

async function turnsAt(url: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    // Ready first, then asked: a count asked before the last session was loaded is not the answer.
    const status = (await (await fetch(`${url}status`)).json()) as { ingest: { state: string } };
    if (status.ingest.state === 'ready') return turnsNow(url);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('ingest did not finish');
}

describe('weave serve from the command line', () => {
  it('bin/weave serve PATH: prints the URL, answers, stops on SIGTERM', async () => {
    const store = await mkdtemp(join(tmpdir(), 'weave-cli-serve-'));
    const run = serve(join(REPO, 'bin', 'weave'), ['serve', SERVER_FIXTURES, '--store', store, '--port', '0', '--workers', '2']);
    try {
      const url = await run.url;
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      // "ready" once the sessions answer, not when the store alone is open: asked at once, all 6 turns are there.
      await run.printed(/^weave serve: ready [\d.]+ s after start: the store answers with 2 sessions$/m);
      assert.equal(await turnsNow(url), '6');
      const said = run
        .output()
        .stdout.split('\n')
        .map((l) => l.replace(/[\d.]+ s after/, 'N s after').replace(/\d[\d,]* quads/, 'Q quads'));
      assert.deepEqual(said.slice(1, 3), [
        'weave serve: serving; the store is open (Q quads), sessions still loading: answers hold what is read so far',
        'weave serve: ready N s after start: the store answers with 2 sessions',
      ]);
      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0);
      assert.match(run.output().stderr, /ingested 2 sessions \(0 unchanged\), 6 records/);
    } finally {
      run.child.kill('SIGKILL');
      await rm(store, { recursive: true, force: true });
    }
  });

  it('npm start with no transcripts at all serves the bundled fixtures, and says so; the other commands name that store', async () => {
    const home = await mkdtemp(join(tmpdir(), 'weave-cli-home-'));
    await mkdir(join(home, '.claude', 'projects'), { recursive: true });
    const tmp = await mkdtemp(join(tmpdir(), 'weave-cli-tmp-'));
    const env = { HOME: home, TMPDIR: tmp, CLAUDE_CONFIG_DIR: '', WEAVE_HOME: '', XDG_DATA_HOME: join(home, 'data') };
    // package.json's own start script, as npm runs it (in the repository, through sh).
    const start = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')).scripts.start as string;
    const run = serve('sh', ['-c', `exec ${start} --port 0`], env);
    const fixturesStore = join(tmp, 'weave-fixtures-store');
    const noStore = `no store in ${join(home, 'data', 'weave')}: run "weave ingest" first, or name a store with --store DIR`;
    const weave = (args: string[]) => exec(join(REPO, 'bin', 'weave'), args, env);
    try {
      const url = await run.url;
      await turnsAt(url);
      assert.match(
        run.output().stderr,
        new RegExp(
          `no transcripts under ${join(home, '.claude', 'projects')}: using the bundled fixtures in \\S+; 8 of their lines are broken on purpose`,
        ),
      );
      assert.match(run.output().stdout, new RegExp(`store ${fixturesStore}\\)`));
      assert.match(
        run.output().stdout,
        new RegExp(
          `\nweave serve: serving the bundled fixtures from ${fixturesStore}, a store of their own; other commands read it with --store ${fixturesStore}\n`,
        ),
      );
      // A command on the default store, which is not there, names the fixtures' server and how to ask it.
      const served = `; a weave serve of the bundled fixtures runs at ${url}: --store ${fixturesStore} asks it\n`;
      assert.deepEqual(await weave(['query', 'ASK {}']), { code: 1, stdout: '', stderr: `weave query: ${noStore}${served}` });
      assert.deepEqual(await weave(['status']), { code: 1, stdout: '', stderr: `weave status: ${noStore}${served}` });
      assert.deepEqual(await weave(['query', 'ASK { ?t a weave:Turn }', '--store', fixturesStore, '--format', 'csv']), {
        code: 0,
        stdout: 'true\r\n', // CSV lines end in CRLF
        stderr: '',
      });
      const status = (await (await fetch(`${url}status`)).json()) as { ingest: { note: string } };
      assert.match(status.ingest.note, /using the bundled fixtures in \S+; 8 of their lines are broken on purpose/);
      assert.equal((await fetch(url)).status, 200);
      run.child.kill('SIGTERM');
      await run.exited;
      // Stopped, its store stays, and is named.
      assert.deepEqual(await weave(['status']), {
        code: 1,
        stdout: '',
        stderr: `weave status: ${noStore}; weave serve stored the bundled fixtures in ${fixturesStore}: --store ${fixturesStore} reads them\n`,
      });
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      await rm(home, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it("npm start serving the bundled fixtures makes way, at the same address, for the user's first transcript", async () => {
    // A new user who ran npm start before their first Claude Code session kept the fixtures: the
    // server never looked at ~/.claude/projects again, and said nothing.
    const home = await mkdtemp(join(tmpdir(), 'weave-cli-home-'));
    const projects = join(home, '.claude', 'projects');
    await mkdir(projects, { recursive: true });
    const tmp = await mkdtemp(join(tmpdir(), 'weave-cli-tmp-'));
    const env = { HOME: home, TMPDIR: tmp, CLAUDE_CONFIG_DIR: '', WEAVE_HOME: '', XDG_DATA_HOME: join(home, 'data') };
    const start = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')).scripts.start as string;
    const run = serve('sh', ['-c', `exec ${start} --port 0`], env);
    try {
      const url = await run.url;
      // The fixtures: 40 sessions (fixtures/card's two, a main file and a sub-agent file alone, among them).
      await run.printed(/^weave serve: ready [\d.]+ s after start: the store answers with 40 sessions$/m);
      // The first session: fixtures/server's 3333…, four records, each a turn.
      await mkdir(join(projects, '-home-grace-weave-server'));
      await copyFile(
        join(SERVER_FIXTURES, '-home-grace-weave-server', '33333333-3333-4333-8333-333333333333.jsonl'),
        join(projects, '-home-grace-weave-server', '33333333-3333-4333-8333-333333333333.jsonl'),
      );
      await run.printed(/^weave serve: ready [\d.]+ s after start: the store answers with 1 session$/m);
      assert.match(
        run.output().stderr,
        new RegExp(
          `\nweave serve: transcripts appeared under ${projects}: serving them, from ${join(home, 'data', 'weave')}, at this address\n`,
        ),
      );
      assert.equal(run.output().stdout.match(/listening on /g)?.length, 2);
      assert.match(
        run.output().stdout,
        new RegExp(`listening on ${url} \\(SPARQL endpoint ${url}sparql, store ${join(home, 'data', 'weave')}\\)`),
      );
      assert.equal(await turnsNow(url), '4');
      run.child.kill('SIGTERM');
      assert.equal(await run.exited, 0);
    } finally {
      run.child.kill('SIGKILL');
      await rm(home, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  });

  /**
   * Found laying out transcripts as a user whose project folders live elsewhere: `weave ingest`
   * read the linked folder, and `npm start` said "no transcripts under …/projects" and served the
   * bundled fixtures (its own walk took a link to a folder for neither file nor folder).
   */
  it('npm start serves a project folder linked into ~/.claude/projects, as weave ingest reads it', async () => {
    const home = await mkdtemp(join(tmpdir(), 'weave-cli-home-'));
    const projects = join(home, '.claude', 'projects');
    await mkdir(projects, { recursive: true });
    await symlink(join(SERVER_FIXTURES, '-home-grace-weave-server'), join(projects, '-home-grace-weave-server'));
    const tmp = await mkdtemp(join(tmpdir(), 'weave-cli-tmp-'));
    const env = { HOME: home, TMPDIR: tmp, CLAUDE_CONFIG_DIR: '', WEAVE_HOME: '', XDG_DATA_HOME: join(home, 'data') };
    const start = JSON.parse(await readFile(join(REPO, 'package.json'), 'utf8')).scripts.start as string;
    const run = serve('sh', ['-c', `exec ${start} --port 0`], env);
    try {
      const url = await run.url;
      // fixtures/server's two sessions: 3333… of four turns, 4444… of two.
      await run.printed(/^weave serve: ready [\d.]+ s after start: the store answers with 2 sessions$/m);
      assert.doesNotMatch(run.output().stderr, /bundled fixtures/);
      assert.match(run.output().stdout, new RegExp(`store ${join(home, 'data', 'weave')}\\)`));
      assert.equal(await turnsNow(url), '6');
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
      await rm(home, { recursive: true, force: true });
      await rm(tmp, { recursive: true, force: true });
    }
  });

  it('serve --store DIR with no transcripts serves DIR as it is: the bundled fixtures never go into a store the user named', async () => {
    const home = await mkdtemp(join(tmpdir(), 'weave-cli-home-'));
    const store = join(home, 'team-store');
    const env = { HOME: home, CLAUDE_CONFIG_DIR: '', WEAVE_HOME: '', XDG_DATA_HOME: join(home, 'data') };
    try {
      assert.equal((await exec(join(REPO, 'bin', 'weave'), ['ingest', SERVER_FIXTURES, '--store', store], env)).code, 0);
      const before = JSON.parse(await readFile(join(store, 'manifest.json'), 'utf8')).graphs;
      // No ~/.claude/projects at all, then an empty one (read as sessions come).
      for (const [projects, said] of [
        [undefined, `no transcripts at ${join(home, '.claude', 'projects')}: serving the store as it is`],
        [
          join(home, '.claude', 'projects'),
          `no transcripts under ${join(home, '.claude', 'projects')} yet: serving the store as it is, and reading them as they come`,
        ],
      ] as const) {
        if (projects) await mkdir(projects, { recursive: true });
        const run = serve(join(REPO, 'bin', 'weave'), ['serve', '--store', store, '--port', '0'], env);
        try {
          const url = await run.url;
          // Ready once the store is open (no ingest), or once the empty folder is read.
          await run.printed(/^weave serve: ready /m);
          assert.equal(await turnsNow(url), '6');
          assert.match(run.output().stderr, new RegExp(`^weave serve: ${said.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
          assert.doesNotMatch(run.output().stderr, /bundled fixtures/);
        } finally {
          run.child.kill('SIGTERM');
          await run.exited;
        }
        assert.deepEqual(
          Object.keys(JSON.parse(await readFile(join(store, 'manifest.json'), 'utf8')).graphs).sort(),
          Object.keys(before).sort(),
        );
      }
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('--help and bad options', async () => {
    const help = serve(join(REPO, 'bin', 'weave'), ['serve', '--help']);
    assert.equal(await help.exited, 0);
    assert.match(help.output().stdout, /^usage: weave serve \[PATH\.\.\.\] \[options\]/);
    const bad = serve(join(REPO, 'bin', 'weave'), ['serve', '--port', 'x']);
    assert.equal(await bad.exited, 2);
    assert.equal(bad.output().stderr, 'weave serve: --port must be a number of at least 0, not "x"\n');
  });
});
