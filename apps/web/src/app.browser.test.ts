// The page in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core),
// against the real server, agent loop, tools and governor, on the offline scripted model.
// No Chromium means failure, never a skip: CI installs it (.ci/run), and so must a developer.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_DIR, OUTPUT_DIR, openChromiumPage, requireBrowserTestSetup, type ChromiumPage } from './test-support/chromium-page.js';
import { startTestDemo } from './test-support/demo-fixture.js';

let demo: Awaited<ReturnType<typeof startTestDemo>>;
let browser: ChromiumPage;
let page: Page;
const network: string[] = [];

beforeAll(async () => {
  requireBrowserTestSetup();
  demo = await startTestDemo({ clientDir: CLIENT_DIR, deltaDelayMs: 4 });
  browser = await openChromiumPage({ width: 1440, height: 900 });
  page = browser.page;
  // What the page asked for and got, printed when a wait times out (a hang under load must say where).
  const t0 = Date.now();
  page.on('request', (r) => network.push(`${Date.now() - t0}ms ${r.method()} ${r.url()}`));
  page.on('response', (r) => network.push(`${Date.now() - t0}ms ${r.status()} ${r.url()}`));
  page.on('requestfailed', (r) => network.push(`${Date.now() - t0}ms failed ${r.url()} ${r.failure()?.errorText ?? ''}`));
  await page.goto(demo.url);
  await page.waitForSelector('body[data-ready]');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await demo?.dispose();
});

function pageProblems(): string[] {
  return browser?.problems ?? [];
}

/** Waits for a selector; on a timeout, fails with the chat items, page errors and network log. */
async function waitOrExplain(selector: string): Promise<void> {
  try {
    await page.waitForSelector(selector);
  } catch (error) {
    const items = await page.evaluate(() => [...document.querySelectorAll('[data-kind]')].map((e) => `${e.getAttribute('data-kind')}:${e.getAttribute('data-tool') ?? ''}:${e.getAttribute('data-status') ?? ''}`));
    throw new Error(`${(error as Error).message}\nitems: ${JSON.stringify(items)}\nproblems: ${JSON.stringify(pageProblems())}\nnetwork:\n${network.slice(-40).join('\n')}`, { cause: error });
  }
}

async function send(text: string): Promise<void> {
  await page.fill('[data-testid=input]', text);
  await page.click('[data-testid=send]');
}

async function waitTurnDone(): Promise<void> {
  await page.waitForSelector('[data-testid=status][data-state=done]', { timeout: 90_000 });
}

// Generous limits: they only catch a hang; a loaded CI machine (2 cores, many jobs) is slow.
describe('the web demo in Chromium', { timeout: 120_000 }, () => {
  it('sends a message, shows a tool run and the streamed answer, and draws the budget', async () => {
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('.chat-empty');
    await send('What is in the workspace?');
    await waitOrExplain('[data-kind=user] >> text=What is in the workspace?');
    await waitOrExplain('[data-kind=tool][data-tool=list_dir][data-status=ok]');
    await waitOrExplain('[data-kind=tool][data-tool=read_file][data-status=ok]');
    await waitTurnDone();
    const answer = page.locator('[data-kind=assistant]').last();
    await expect(answer.textContent()).resolves.toContain('Here is what I found.');
    await expect(answer.textContent()).resolves.toContain('README.md');
    // Streamed: the bubble was built from many deltas, and is no longer marked as streaming.
    expect(Number(await answer.getAttribute('data-deltas'))).toBeGreaterThan(5);
    expect(await answer.getAttribute('class')).not.toContain('streaming');

    // Three requests in this turn (list, read, answer): the inspector follows every one.
    await expect(page.locator('.iterations .iter').count()).resolves.toBe(3);
    for (const segment of ['system', 'tools', 'history', 'current', 'headroom']) {
      await expect(page.locator(`[data-testid=budget] .seg[data-segment=${segment}]`).count()).resolves.toBe(1);
    }
    const systemTokens = Number(await page.locator('[data-testid=budget] .seg[data-segment=system]').getAttribute('data-tokens'));
    expect(systemTokens).toBeGreaterThan(100);
    await page.click('[data-tab=prompt]');
    await page.waitForSelector('[data-testid=sections] [data-section=identity]');
    await page.waitForSelector('[data-testid=sections] [data-section=tool_contract]');
    await page.click('[data-tab=request]');
    expect(pageProblems()).toEqual([]);
  });

  it('marks a backfilled result and snipped history on the prepared long session', async () => {
    await page.click('[data-testid=prepared-session]');
    await page.waitForSelector('[data-kind=user] >> text=Compare the notes with the README.');
    // The stored tool call that never got a result shows as such in the chat.
    await page.waitForSelector('[data-kind=tool][data-status=interrupted]');
    await send('What changed since then?');
    await page.waitForSelector('[data-kind=user] >> text=What changed since then?');
    await waitTurnDone();

    const backfilled = page.locator('[data-testid=timeline] .tl-row[data-marks~=backfilled]');
    await expect(backfilled.count()).resolves.toBe(1);
    await expect(backfilled.textContent()).resolves.toContain('Tool result unavailable');
    const snipped = page.locator('[data-testid=timeline] [data-removed=snipped]');
    await expect(snipped.count()).resolves.toBe(1);
    expect(Number(await snipped.getAttribute('data-count'))).toBeGreaterThan(5);
    await expect(page.locator('[data-testid=actions] [data-action=snipped]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid=actions] [data-action=backfilled]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid=budget] [data-testid=transcript-vs-sent]').textContent()).resolves.toMatch(/^As given to the governor the transcript is [\d,]+ tokens; it sent [\d,]+\.$/);
    // Each change says why, in view.
    await expect(page.locator('[data-testid=actions] [data-action=snipped] [data-testid=why]').textContent()).resolves.toMatch(/^Left out to fit the [\d,]+-token budget/);
    await expect(backfilled.locator('[data-testid=why]').textContent()).resolves.toMatch(/has no result in the history/);
    // The offline model is not in the model table: counted as the governor counts by default.
    await expect(page.locator('[data-testid=budget] [data-testid=tokenizer]').textContent()).resolves.toBe('Counted with cl100k_base.');

    // Unchanged history is folded, so budget, actions, the snipped block and the backfilled row
    // all fit in one screen for the screenshot.
    await expect(page.locator('[data-testid=timeline] .tl-folded').count()).resolves.toBe(1);
    await page.locator('[data-testid=inspector-panel]').evaluate((el) => el.scrollTo(0, 0));
    const box = await backfilled.boundingBox();
    expect(box && box.y + box.height).toBeLessThan(900);
    mkdirSync(OUTPUT_DIR, { recursive: true });
    await page.screenshot({ path: join(OUTPUT_DIR, 'inspector.png') });
    expect(existsSync(join(OUTPUT_DIR, 'inspector.png'))).toBe(true);
    // The snipped messages are listed (struck through) when the block is opened.
    await snipped.locator('summary').click();
    await expect(snipped.locator('li').count()).resolves.toBe(Number(await snipped.getAttribute('data-count')));
    expect(pageProblems()).toEqual([]);
  });

  it('links an offloaded tool result to the file the server serves', async () => {
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('.chat-empty');
    await send('Check the logs');
    await page.waitForSelector('[data-kind=tool][data-tool=grep][data-status=ok]');
    await waitTurnDone();
    // The answer comes from the log lines the model was shown, not from a note about them.
    const answer = (await page.locator('[data-kind=assistant]').last().textContent()) ?? '';
    expect(answer).toMatch(/found \d+ log lines/);
    expect(answer).toMatch(/\d+ ERROR, \d+ WARN, \d+ INFO/);
    expect(answer).toMatch(/ERROR step \d+/);
    expect(answer).not.toMatch(/failed|compacted/);
    const link = page.locator('[data-testid=timeline] [data-testid=artifact-link]').first();
    const href = await link.getAttribute('href');
    expect(href).toMatch(/^\/api\/artifacts\/[a-f0-9]{24}$/);
    await expect(page.locator('[data-testid=timeline] .tl-row[data-marks~=offloaded]').count()).resolves.toBe(1);
    const body = await page.evaluate(async (url) => (await fetch(url)).text(), href!);
    expect(body).toContain('ERROR step 0');
    await page.screenshot({ path: join(OUTPUT_DIR, 'offload.png') });
  });

  it('switches between sessions', async () => {
    const sessions = page.locator('[data-testid=sessions] .session');
    // The one created on first load (no sessions yet) plus the three this file made.
    await expect(sessions.count()).resolves.toBe(4);
    await page.click('[data-testid=sessions] .session:has-text("Prepared long session")');
    await page.waitForSelector('[data-kind=user] >> text=What changed since then?');
    await expect(page.locator('[data-testid=sessions] .session.active').textContent()).resolves.toContain('Prepared long session');
    // The inspector shows that session's last request again.
    await page.waitForSelector('[data-testid=timeline] .tl-row[data-marks~=backfilled]');
    await page.click('[data-testid=sessions] .session:has-text("What is in the workspace?")');
    await page.waitForSelector('[data-kind=tool][data-tool=list_dir]');
    await expect(page.locator('[data-kind=user] >> text=What changed since then?').count()).resolves.toBe(0);
    expect(pageProblems()).toEqual([]);
    expect(demo.errors).toEqual([]);
  });

  // The first test's race, made deterministic: under load, "+ New chat" was still creating the
  // session when Send was pressed (the old, empty chat already matched `.chat-empty`). The message
  // went to the old session, whose stream the page then closed, so the new chat never showed it.
  it('sends a message typed while a new chat is being created to that new chat', async () => {
    const before = await page.locator('[data-testid=sessions] .session').count();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let creating!: () => void;
    const created = new Promise<void>((resolve) => (creating = resolve));
    await page.route('**/api/sessions', async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      creating();
      await held;
      await route.continue();
    });
    try {
      await page.click('[data-testid=new-session]');
      await created;
      await send('Typed before the chat existed');
      release();
      // The open chat is the new one (titled by its first message) and holds exactly this turn.
      await waitOrExplain('[data-testid=sessions] .session.active:has-text("Typed before the chat existed")');
      await waitOrExplain('[data-kind=assistant]:has-text("Here is what I found.")');
    } finally {
      release();
      await page.unroute('**/api/sessions');
    }
    await expect(page.locator('[data-testid=sessions] .session').count()).resolves.toBe(before + 1);
    await expect(page.locator('[data-kind=user]').allTextContents()).resolves.toEqual(['Typed before the chat existed']);
    await expect(page.locator('[data-kind=tool][data-tool=list_dir][data-status=ok]').count()).resolves.toBe(1);
    await expect(page.locator('[data-testid=input]').inputValue()).resolves.toBe('');
    expect(pageProblems()).toEqual([]);
    expect(demo.errors).toEqual([]);
  });

  // A message waits for its session's stream; switching to another session meanwhile used to
  // leave that wait unresolved forever (the text gone from the box, nothing sent, no error).
  it('gives a message back when the session is switched again before it could be sent', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opening!: () => void;
    const opened = new Promise<void>((resolve) => (opening = resolve));
    let first = true;
    await page.route('**/events', async (route) => {
      // Only the first stream (the session opened first) is held back; the next one flows.
      if (!first) return route.continue();
      first = false;
      opening();
      await held;
      await route.continue().catch(() => undefined);
    });
    try {
      await page.click('[data-testid=sessions] .session:has-text("Check the logs")');
      await opened;
      await send('Which session gets this?');
      await page.click('[data-testid=sessions] .session:has-text("What is in the workspace?")');
      await waitOrExplain('[data-testid=status][data-state=error]');
      await waitOrExplain('[data-testid=status-details]:has-text("The session changed before the message was sent.")');
    } finally {
      release();
      await page.unroute('**/events');
    }
    await expect(page.locator('[data-testid=input]').inputValue()).resolves.toBe('Which session gets this?');
    await page.waitForSelector('[data-kind=user] >> text=What is in the workspace?');
    await expect(page.locator('[data-kind=user] >> text=Which session gets this?').count()).resolves.toBe(0);
    await page.fill('[data-testid=input]', '');
    expect(pageProblems()).toEqual([]);
    expect(demo.errors).toEqual([]);
  });

  it('links to the governor playground, which opens and links back', async () => {
    // A page of its own: the other tests' page keeps its sessions.
    const other = await browser.context.newPage();
    const errors: string[] = [];
    other.on('pageerror', (error) => errors.push(error.message));
    try {
      for (const [width, label] of [[1280, 'Governor playground →'], [390, 'Playground']] as const) {
        await other.setViewportSize({ width, height: 844 });
        await other.goto(demo.url);
        await other.waitForSelector('body[data-ready]');
        const link = other.locator('[data-testid=playground-link]');
        await expect(link.isVisible()).resolves.toBe(true);
        await expect(link.innerText()).resolves.toBe(label);
        const box = (await link.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(width);
      }
      await other.click('[data-testid=playground-link]');
      await other.waitForURL('**/playground.html');
      await other.waitForSelector('body[data-ready]');
      await expect(other.locator('.pg-brand').innerText()).resolves.toContain('Governor playground');
      await other.click('.pg-link');
      await other.waitForURL(new URL('/', demo.url).href);
      await other.waitForSelector('[data-testid=playground-link]');
    } finally {
      await other.close();
    }
    expect(errors).toEqual([]);
    expect(demo.errors).toEqual([]);
  });
});
