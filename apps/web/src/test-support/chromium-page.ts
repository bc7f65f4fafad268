// The browser tests' Chromium: Debian's /usr/bin/chromium (or NANOBOT_CHROMIUM) driven by
// playwright-core, a fresh profile per suite, page errors collected. No Chromium and no built
// page mean failure, never a skip.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import type { BrowserContext, Page } from 'playwright-core';

const CHROMIUM = process.env.NANOBOT_CHROMIUM ?? '/usr/bin/chromium';
const APP_DIR = resolve(import.meta.dirname, '..', '..');
/** The built page the demo server serves. */
export const CLIENT_DIR = join(APP_DIR, 'dist', 'client');
/** Where screenshots go (git-ignored). */
export const OUTPUT_DIR = join(APP_DIR, 'test-output');

/** An open Chromium page and what it reported. */
export interface ChromiumPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors, in order. */
  problems: string[];
  close(): Promise<void>;
}

/** Throws unless Chromium and the built page are there (the browser tests never skip). */
export function requireBrowserTestSetup(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium) or set NANOBOT_CHROMIUM. The browser tests never skip.`);
  if (!existsSync(join(CLIENT_DIR, 'index.html'))) throw new Error(`The page is not built (${CLIENT_DIR}/index.html missing): run the app's build (tsc + vite build) before its tests.`);
}

/** Starts headless Chromium with a fresh profile and the given window size. */
export async function openChromiumPage(viewport: { width: number; height: number }): Promise<ChromiumPage> {
  const profile = mkdtempSync(join(tmpdir(), 'nanobot-web-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(60_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  return {
    context,
    page,
    problems,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
