import type { IngestProgress } from '../ingest.ts';
import { cut } from '../query/fit.ts';

/** One line rewritten in place on a terminal, at most every 100 ms; silent elsewhere. */
function liveLine(stream: NodeJS.WriteStream): { show(text: string, force?: boolean): void; done(): void } {
  if (!stream.isTTY) return { show() {}, done() {} };
  let last = 0;
  return {
    show(text, force = false) {
      const now = performance.now();
      if (now - last < 100 && !force) return;
      last = now;
      const width = stream.columns || 80;
      // One column short of the edge: a line that fills it wraps on some terminals, and \r then rewrites only its end.
      stream.write(`\r${cut(text, width - 1)}\x1b[K`);
    },
    done() {
      stream.write('\r\x1b[K');
    },
  };
}

function bar(done: number, total: number, width = 24): string {
  const filled = Math.round((done / Math.max(1, total)) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
}

/** The ingest phase: sessions, files, records, MB/s. */
export function progressBar(stream: NodeJS.WriteStream = process.stderr): { update(p: IngestProgress): void; done(): void } {
  const line = liveLine(stream);
  const started = performance.now();
  return {
    update(p) {
      const mbs = p.bytes / 1e6 / Math.max(0.001, (performance.now() - started) / 1000);
      line.show(
        `reading transcripts ${bar(p.sessionsDone, p.sessionsTotal)} ${p.sessionsDone}/${p.sessionsTotal} sessions · ${p.files} files · ${p.records.toLocaleString('en')} records · ${mbs.toFixed(1)} MB/s${p.sent ? ` · ${p.sent} graphs sent` : ''}`,
        p.sessionsDone === p.sessionsTotal,
      );
    },
    done: line.done,
  };
}

/** Opening the store: quads loaded of the manifest's total. */
export function loadingBar(stream: NodeJS.WriteStream = process.stderr): { update(quads: number, of: number): void; done(): void } {
  const line = liveLine(stream);
  return {
    update(quads, of) {
      line.show(`opening the store ${bar(quads, of)} ${quads.toLocaleString('en')}/${of.toLocaleString('en')} quads`);
    },
    done: line.done,
  };
}

/** The readers' phase (weave detect, also run after ingest): sessions read so far. */
export function readersBar(stream: NodeJS.WriteStream = process.stderr): { update(done: number, total: number): void; done(): void } {
  const line = liveLine(stream);
  return {
    update(done, total) {
      line.show(`running readers ${bar(done, total)} ${done}/${total} sessions`, done === total);
    },
    done: line.done,
  };
}

/** weave verify: transcript files checked against the store (a long session's graph is asked before its first). */
export function verifyBar(stream: NodeJS.WriteStream = process.stderr): { update(checked: number, total: number): void; done(): void } {
  const line = liveLine(stream);
  return {
    update(checked, total) {
      line.show(`verifying ${bar(checked, total)} ${checked}/${total} files`, checked === total);
    },
    done: line.done,
  };
}
