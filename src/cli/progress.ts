import type { IngestProgress } from '../ingest.ts';

/** A one-line progress bar on a terminal (files, records, MB/s); silent elsewhere. */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): { update(p: IngestProgress): void; done(): void } {
  if (!stream.isTTY) return { update() {}, done() {} };
  const started = performance.now();
  let last = 0;
  return {
    update(p) {
      const now = performance.now();
      if (now - last < 100 && p.sessionsDone < p.sessionsTotal) return;
      last = now;
      const width = 24;
      const filled = Math.round((p.sessionsDone / Math.max(1, p.sessionsTotal)) * width);
      const mbs = p.bytes / 1e6 / Math.max(0.001, (now - started) / 1000);
      stream.write(
        `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${p.sessionsDone}/${p.sessionsTotal} sessions · ${p.files} files · ${p.records.toLocaleString('en')} records · ${mbs.toFixed(1)} MB/s\x1b[K`,
      );
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}
