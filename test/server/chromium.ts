import { existsSync } from 'node:fs';

/** Debian's headless Chromium, which the page tests drive (absent: they say they skipped, and why). */
export const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && existsSync(p));

/** Flags for a browser that reaches nothing but the test's own server, and starts quietly. */
export const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
