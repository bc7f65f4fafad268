// The page at phone, tablet and laptop widths, and Stop mid-reply, in a real headless Chromium
// (Debian's /usr/bin/chromium via playwright-core) against the real server on the offline model.
// Screenshots go to apps/web/test-output/ (git-ignored). No Chromium means failure, never a skip.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_DIR, OUTPUT_DIR, openChromiumPage, requireBrowserTestSetup, type ChromiumPage } from './test-support/chromium-page.js';
import { startTestDemo } from './test-support/demo-fixture.js';

let demo: Awaited<ReturnType<typeof startTestDemo>>;
let browser: ChromiumPage;
let page: Page;
let problems: string[] = [];

beforeAll(async () => {
  requireBrowserTestSetup();
  // Slow words, so a Stop press lands while the reply is still streaming.
  demo = await startTestDemo({ clientDir: CLIENT_DIR, deltaDelayMs: 150 });
  browser = await openChromiumPage({ width: 1280, height: 800 });
  ({ page, problems } = browser);
  await page.goto(demo.url);
  await page.waitForSelector('body[data-ready]');
  mkdirSync(OUTPUT_DIR, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await demo?.dispose();
});

async function assistantTexts(): Promise<string[]> {
  return page.locator('[data-kind=assistant]').allTextContents();
}

describe('the web demo in Chromium: Stop and narrow windows', { timeout: 180_000 }, () => {
  it('Stop shows the partial reply once, and once again after a reload', async () => {
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('.chat-empty');
    await page.fill('[data-testid=input]', 'hello there, tell me about yourself');
    await page.click('[data-testid=send]');
    // A few words of the answer are on screen, the rest still to come.
    await page.waitForFunction(() => Number(document.querySelector('[data-kind=assistant].streaming')?.getAttribute('data-deltas') ?? 0) >= 3);
    await page.click('[data-testid=stop]');
    await page.waitForFunction(() => document.querySelector('[data-testid=stop]')?.hasAttribute('disabled') === true);
    await page.waitForSelector('[data-kind=notice]');
    // One clear line says how the turn ended.
    await expect(page.locator('[data-kind=notice]').allTextContents()).resolves.toEqual(['Stopped — the reply so far is kept.']);
    const live = await assistantTexts();
    expect(live).toHaveLength(1);
    expect(live[0].trim()).not.toBe('');
    const partial = live[0];
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    await page.waitForSelector('[data-kind=user]');
    const reloaded = await assistantTexts();
    expect(reloaded).toHaveLength(1);
    expect(reloaded[0].trim()).toBe(partial.trim());
    expect(problems).toEqual([]);
  });

  it('opens the prepared long session (a full chat and a tall inspector) for the layout checks', async () => {
    await page.click('[data-testid=prepared-session]');
    await page.waitForSelector('[data-kind=user] >> text=Compare the notes with the README.');
    await page.fill('[data-testid=input]', 'What changed since then?');
    await page.click('[data-testid=send]');
    await page.waitForSelector('[data-testid=status][data-state=done]', { timeout: 120_000 });
    await page.waitForSelector('[data-testid=timeline] .tl-row');
  });

  for (const [width, height] of [[390, 844], [800, 900], [1280, 800]] as const) {
    it(`at ${width} px the composer and Send are on screen and the chat is wide enough`, async () => {
      await page.setViewportSize({ width, height });
      await page.reload();
      await page.waitForSelector('body[data-ready]');
      await page.waitForSelector('[data-kind=user]');
      const send = await page.locator('[data-testid=send]').boundingBox();
      const input = await page.locator('[data-testid=input]').boundingBox();
      const chat = await page.locator('main.chat').boundingBox();
      expect(send && input && chat).toBeTruthy();
      // Send is fully inside the first screen, without scrolling.
      expect(send!.x).toBeGreaterThanOrEqual(0);
      expect(send!.y).toBeGreaterThanOrEqual(0);
      expect(send!.x + send!.width).toBeLessThanOrEqual(width);
      expect(send!.y + send!.height).toBeLessThanOrEqual(height);
      expect(input!.width).toBeGreaterThan(Math.min(200, width * 0.5));
      // The chat is a column people can read, not a strip.
      expect(chat!.width).toBeGreaterThanOrEqual(Math.min(360, width * 0.9));
      expect(chat!.height).toBeGreaterThanOrEqual(height * 0.6);
      // Nothing runs off to the side.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      // The inspector is beside the chat, or one tap away (the Chat | Inspector bar), never below it.
      if (width <= 1100) {
        expect(await page.locator('[data-testid=inspector-panel]').isVisible()).toBe(false);
        await page.click('[data-testid=view-inspector]');
      }
      await page.waitForSelector('[data-testid=timeline] .tl-row');
      const inspector = await page.locator('[data-testid=inspector-panel]').boundingBox();
      expect(inspector!.width).toBeGreaterThanOrEqual(Math.min(360, width * 0.9));
      expect(inspector!.y).toBeLessThan(height / 4);
      if (width <= 1100) await page.click('[data-testid=view-chat]');
      await page.screenshot({ path: join(OUTPUT_DIR, `layout-${width}.png`) });
      expect(existsSync(join(OUTPUT_DIR, `layout-${width}.png`))).toBe(true);
      expect(problems).toEqual([]);
    });
  }
});
