import { QueryPool } from '../src/server/workers/pool.ts';
const pool = new QueryPool({ size: Number(process.env.S), storeDir: '/tmp/cs', soul: 'local', timeoutMs: 30000, queueLimit: 64, heapMb: 2048 });
await pool.whenReady();
const T = 'urn:soul:local:Weave/Turn/0007baee-fa49-4e6a-8b00-1e5f126743cf';
for (const q of ['ASK {}', `SELECT ?p ?o WHERE { <${T}> ?p ?o }`]) {
  const job: any = { op: 'query', query: q, accept: ['application/sparql-results+json'], maxResultBytes: 1e9 };
  for (let i = 0; i < 500; i++) await pool.run(job);
  let t = performance.now();
  for (let i = 0; i < 3000; i++) await pool.run(job);
  console.log(q.slice(0, 10), ((performance.now() - t) / 3000 * 1000).toFixed(0), 'µs per job');
}
await pool.close();
