import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';

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

/** A page in a fresh headless Chromium that may reach `base` (and data: URLs) and nothing else. */
export interface OpenPage {
  page: Page;
  /** Requests it tried beyond `base`, aborted. */
  outside: string[];
  /** Page errors and console errors. */
  problems: string[];
  close(): Promise<void>;
}

export async function openPage(base: string, width: number, height = 1000): Promise<OpenPage> {
  const profile = await mkdtemp(join(tmpdir(), 'weave-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width, height },
  });
  const outside: string[] = [];
  const problems: string[] = [];
  await browser.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(base) || url.startsWith('data:')) return route.continue();
    outside.push(url);
    return route.abort();
  });
  const page = browser.pages()[0] ?? (await browser.newPage());
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()}`);
  });
  return {
    page,
    outside,
    problems,
    close: async () => {
      await browser.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
