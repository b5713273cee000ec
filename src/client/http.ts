import { request, type IncomingHttpHeaders } from 'node:http';

/**
 * One HTTP/1.1 exchange with node:http. Node 20's global fetch loads undici on first use, some
 * 100–200 ms on a busy machine: most of what a command asking a local server spends beyond
 * starting node. HTTPS goes through fetch (a server found by its run file is plain HTTP).
 * Without `timeoutMs` it waits as long as the answer takes: Node 20's global agent times its
 * keep-alive sockets out after 5 s, which cut a query a busy server answered in 6 (so no agent).
 */
interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export async function httpRequest(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  if (url.startsWith('https:')) {
    const res = await fetch(url, { ...init, signal: init.timeoutMs ? AbortSignal.timeout(init.timeoutMs) : undefined });
    return { status: res.status, headers: Object.fromEntries(res.headers), text: await res.text() };
  }
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers, timeout: init.timeoutMs, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    if (init.timeoutMs)
      req.on('timeout', () =>
        req.destroy(Object.assign(new Error(`no answer from ${url} in ${init.timeoutMs} ms`), { name: 'TimeoutError' })),
      );
    req.on('error', reject);
    req.end(init.body);
  });
}
