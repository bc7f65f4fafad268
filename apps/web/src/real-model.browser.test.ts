// The page with a real model (this test's own OpenAI-compatible server on 127.0.0.1, through the
// real openai SDK: streamed answers, tool calls, billed input above the governor's estimate so the
// usage calibration has work, cached tokens, a price) at 320, 390, 800, 1280 and 1920 px, in
// Debian's headless Chromium: the page never scrolls sideways, the title stays readable, the
// status is one short figure with its details a click away, the inspector is beside the chat or
// one tap away, every change the governor made says why in view (no hovering), and the counts
// agree with each other and with the request the model server really received. Screenshots go to
// apps/web/test-output/ (git-ignored).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InspectorSnapshot, SessionView } from './shared/protocol.js';
import { CLIENT_DIR, OUTPUT_DIR, openChromiumPage, requireBrowserTestSetup, type ChromiumPage } from './test-support/chromium-page.js';
import { startTestDemo } from './test-support/demo-fixture.js';
import { startOpenAiModelServer, type OpenAiModelServer } from './test-support/openai-model-server.js';

let model: OpenAiModelServer;
let demo: Awaited<ReturnType<typeof startTestDemo>>;
let browser: ChromiumPage;
let page: Page;
/** Sessions this file made, and what the model server was sent for each one's last request. */
const sessions: { key: string; title: string; lastRequest: Record<string, any>; billed: number }[] = [];

const fmt = (n: number): string => n.toLocaleString('en-US');

beforeAll(async () => {
  requireBrowserTestSetup();
  model = await startOpenAiModelServer();
  demo = await startTestDemo({
    clientDir: CLIENT_DIR,
    offline: false,
    env: { OPENAI_BASE_URL: model.url, OPENAI_API_KEY: 'test-key', NANOBOT_MODEL: 'gpt-4.1' },
    contextWindowTokens: 8192,
    maxTokens: 1024,
  });
  browser = await openChromiumPage({ width: 1280, height: 800 });
  page = browser.page;
  await page.goto(demo.url);
  await page.waitForSelector('body[data-ready]');
  mkdirSync(OUTPUT_DIR, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await demo?.dispose();
  await model?.close();
});

async function send(text: string): Promise<void> {
  await page.fill('[data-testid=input]', text);
  await page.click('[data-testid=send]');
  await page.waitForSelector(`[data-kind=user] >> text=${text}`);
  await page.waitForSelector('[data-testid=status][data-state=done]', { timeout: 120_000 });
}

async function activeKey(): Promise<string> {
  return decodeURIComponent(await page.evaluate(() => location.hash.slice(1)));
}

async function snapshotOf(key: string): Promise<InspectorSnapshot> {
  const view = (await page.evaluate(async (k) => (await fetch(`/api/sessions/${encodeURIComponent(k)}`)).json(), key)) as SessionView;
  expect(view.inspector).not.toBeNull();
  return view.inspector!;
}

/** Whether the element is shown, inside the window horizontally, and has some size. */
async function inView(selector: string, width: number): Promise<boolean> {
  const locator = page.locator(selector).first();
  if (!(await locator.isVisible())) return false;
  const box = await locator.boundingBox();
  return box !== null && box.width > 0 && box.height > 0 && box.x >= -1 && box.x + box.width <= width + 1;
}

describe('the web demo with a real model, at every width', { timeout: 240_000 }, () => {
  it('runs a tool turn: streamed answer, billed and calibrated counts, a cost', async () => {
    await page.click('[data-testid=new-session]');
    await page.waitForSelector('.chat-empty');
    await send('What is in the workspace?');
    await page.waitForSelector('[data-kind=tool][data-tool=list_dir][data-status=ok]');
    await page.waitForSelector('[data-kind=tool][data-tool=read_file][data-status=ok]');
    const key = await activeKey();
    sessions.push({ key, title: 'What is in the workspace?', lastRequest: model.requests.at(-1)!, billed: model.billed.at(-1)! });
    // The status is one figure: what the last request was billed, and the turn's cost.
    const status = await page.locator('[data-testid=status]').textContent();
    expect(status).toMatch(new RegExp(`^${fmt(model.billed.at(-1)!)} tokens · \\$0\\.\\d{4}$`));
    await page.click('[data-testid=status]');
    const details = (await page.locator('[data-testid=status-details]').textContent())!;
    expect(details).toMatch(new RegExp(`Last request: ${fmt(model.billed.at(-1)!)} input tokens billed by the provider; the governor estimated [\\d,]+ \\([\\d,]+ after the usage calibration\\)\\.`));
    expect(details).toMatch(/Last turn: [\d,]+ tokens in \([\d,]+ cached\), [\d,]+ out, \$0\.\d{4}\./);
    await page.screenshot({ path: join(OUTPUT_DIR, 'real-model-status-1280.png') });
    await page.click('[data-testid=status]');
    expect(await page.locator('[data-testid=status-details]').isVisible()).toBe(false);
  });

  it('governs the prepared long session: snipped, backfilled, calibrated', async () => {
    await page.click('[data-testid=prepared-session]');
    await page.waitForSelector('[data-kind=user] >> text=Compare the notes with the README.');
    await send('What changed since then?');
    const key = await activeKey();
    sessions.push({ key, title: 'Prepared long session', lastRequest: model.requests.at(-1)!, billed: model.billed.at(-1)! });
    const snapshot = await snapshotOf(key);
    expect(snapshot.actions.map((a) => a.action).sort()).toEqual(['backfilled', 'snipped']);
    expect(snapshot.budget.tokensCalibrated).toBeGreaterThan(snapshot.budget.used);
    expect(snapshot.budget.tokenizer).toBe('o200k_base');
  });

  for (const [width, height] of [[320, 640], [390, 844], [800, 900], [1280, 800], [1920, 1080]] as const) {
    it(`at ${width} px: no sideways scroll, a readable title, a short status, reasons in view, counts that add up`, async () => {
      await page.setViewportSize({ width, height });
      for (const session of sessions) {
        await page.goto(`${demo.url}/#${encodeURIComponent(session.key)}`);
        await page.reload();
        await page.waitForSelector('body[data-ready]');
        await page.waitForSelector('[data-kind=user]');
        await page.waitForSelector('[data-testid=status][data-state=done]');
        const name = `real-model-${width}-${session.key.startsWith('web:prepared') ? 'prepared' : 'tools'}`;

        // Nothing runs off to the side, the header included.
        const layout = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
          bodyScrollWidth: document.body.scrollWidth,
          head: [document.querySelector('.chat-head')!.scrollWidth, document.querySelector('.chat-head')!.clientWidth],
          composer: [document.querySelector('.composer')!.scrollWidth, document.querySelector('.composer')!.clientWidth],
          title: document.querySelector('[data-testid=title]')!.getBoundingClientRect().width,
          titleText: document.querySelector('[data-testid=title]')!.textContent,
          // The placeholder fits the input (the same text as a value would not scroll).
          placeholderFits: (() => {
            const input = document.querySelector<HTMLTextAreaElement>('[data-testid=input]')!;
            const saved = input.value;
            input.value = input.placeholder;
            const fits = input.scrollHeight <= input.clientHeight + 1 && input.scrollWidth <= input.clientWidth + 1;
            input.value = saved;
            return fits;
          })(),
          sessionStrip: (() => {
            const list = document.querySelector<HTMLElement>('[data-testid=sessions]')!;
            const box = list.getBoundingClientRect();
            const chips = [...list.querySelectorAll<HTMLElement>('.session')].map((c) => c.getBoundingClientRect().width);
            const active = list.querySelector<HTMLElement>('.session.active')!.getBoundingClientRect();
            return { left: box.left, right: box.right, width: box.width, widest: Math.max(...chips), activeLeft: active.left, activeRight: active.right };
          })(),
        }));
        expect(layout.scrollWidth).toBe(layout.clientWidth);
        expect(layout.bodyScrollWidth).toBe(layout.clientWidth);
        expect(layout.head[0]).toBeLessThanOrEqual(layout.head[1]);
        expect(layout.composer[0]).toBeLessThanOrEqual(layout.composer[1]);
        expect(layout.titleText).toBe(session.title);
        expect(layout.title).toBeGreaterThanOrEqual(80);
        expect(await inView('[data-testid=title]', width)).toBe(true);
        expect(layout.placeholderFits).toBe(true);
        expect(layout.sessionStrip.left).toBeGreaterThanOrEqual(0);
        expect(layout.sessionStrip.right).toBeLessThanOrEqual(width);
        expect(layout.sessionStrip.widest).toBeLessThanOrEqual(layout.sessionStrip.width);
        expect(layout.sessionStrip.activeLeft).toBeGreaterThanOrEqual(layout.sessionStrip.left - 1);
        expect(layout.sessionStrip.activeRight).toBeLessThanOrEqual(layout.sessionStrip.right + 1);

        // The status is one short figure in view; its details open on a click and fit.
        expect(await inView('[data-testid=status]', width)).toBe(true);
        expect(((await page.locator('[data-testid=status]').textContent()) ?? '').length).toBeLessThanOrEqual(26);
        await page.click('[data-testid=status]');
        expect(await inView('[data-testid=status-details]', width)).toBe(true);
        await expect(page.locator('[data-testid=status-details]').textContent()).resolves.toContain(`${fmt(session.billed)} input tokens billed`);
        await page.screenshot({ path: join(OUTPUT_DIR, `${name}-chat.png`) });
        await page.click('[data-testid=status]');

        // The inspector: beside the chat, or one tap away on narrow screens.
        if (width <= 1100) {
          expect(await page.locator('[data-testid=inspector-panel]').isVisible()).toBe(false);
          await page.click('[data-testid=view-inspector]');
        }
        await page.waitForSelector('[data-testid=timeline]');
        expect(await inView('[data-testid=inspector-panel]', width)).toBe(true);
        const snapshot = await snapshotOf(session.key);

        // Every change the governor made says why, in view, in words (never empty or null).
        for (const action of snapshot.actions) {
          const why = `[data-testid=actions] [data-action=${action.action}] [data-testid=why]`;
          expect(await inView(why, width), why).toBe(true);
          await expect(page.locator(why).textContent()).resolves.toBe(action.why);
        }
        for (const row of snapshot.timeline) {
          if (row.kind === 'removed') {
            const why = `[data-testid=timeline] [data-removed=${row.reason}] [data-testid=why]`;
            expect(await inView(why, width), why).toBe(true);
            await expect(page.locator(why).textContent()).resolves.toBe(row.why);
          } else {
            for (const mark of row.marks) {
              const why = `[data-testid=timeline] .tl-row[data-index="${row.index}"] [data-testid=why][data-mark=${mark.action}]`;
              expect(await inView(why, width), why).toBe(true);
              await expect(page.locator(why).textContent()).resolves.toMatch(new RegExp(`^${mark.why.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
            }
          }
        }
        const whys = await page.locator('[data-testid=inspector-panel] [data-testid=why]').allTextContents();
        if (snapshot.actions.length > 0) expect(whys.length).toBeGreaterThan(snapshot.actions.length);
        for (const why of whys) expect(why.trim().length).toBeGreaterThan(20);
        expect(await page.locator('[data-testid=inspector-panel]').textContent()).not.toMatch(/\bnull\b|\bundefined\b|NaN| :: /);

        // The counts add up, agree with what the page says, and with the request the model got.
        const { counts, budget } = snapshot;
        const removed = Object.values(counts.removed).reduce((n, c) => n + (c ?? 0), 0);
        expect(counts.sent + removed).toBe(counts.transcript);
        expect(counts.sent + counts.added).toBe(counts.request);
        expect(counts.request).toBe(session.lastRequest.messages.length);
        expect(snapshot.toolNames.length).toBe(session.lastRequest.tools.length);
        await expect(page.locator('[data-testid=counts]').textContent()).resolves.toBe(`${snapshot.countsText}.`);
        await expect(page.locator('[data-tab=request]').textContent()).resolves.toBe(`Request · ${counts.request} messages`);
        await expect(page.locator('[data-testid=timeline] .tl-row').count()).resolves.toBe(counts.request);
        const shownRemoved = await page.locator('[data-testid=timeline] [data-removed]').evaluateAll((els) => els.reduce((n, e) => n + Number(e.getAttribute('data-count')), 0));
        expect(shownRemoved).toBe(removed);
        expect(budget.used).toBe(budget.system + budget.tools + budget.history + budget.current + budget.overhead);
        await expect(page.locator('[data-testid=budget] .budget-total').textContent()).resolves.toBe(`${fmt(budget.used)} / ${fmt(budget.limit)} tokens`);
        const note = page.locator('[data-testid=transcript-vs-sent]');
        if (snapshot.actions.length === 0) {
          expect(budget.transcriptTokens).toBe(budget.used);
          await expect(note.count()).resolves.toBe(0);
          await expect(page.locator('[data-testid=actions]').textContent()).resolves.toBe('No governance needed: the transcript was sent as stored.');
        } else {
          await expect(note.textContent()).resolves.toBe(`As given to the governor the transcript is ${fmt(budget.transcriptTokens)} tokens; it sent ${fmt(budget.used)}.`);
        }
        // The warning names the real cause (built-in tools) and fix (the demo's switches), never MCP.
        const warning = await page.locator('[data-testid=tools-warning]').textContent();
        expect(warning).toMatch(/^The \d+ built-in tool definitions take [\d,]+ tokens, \d+% of the [\d,]+-token budget/);
        expect(warning).toContain('--no-web');
        expect(warning).not.toMatch(/MCP|enabledTools/);
        await page.screenshot({ path: join(OUTPUT_DIR, `${name}-inspector.png`) });
        if (width <= 1100) await page.click('[data-testid=view-chat]');
      }
      expect(browser.problems).toEqual([]);
      expect(demo.errors).toEqual([]);
    });
  }
});
