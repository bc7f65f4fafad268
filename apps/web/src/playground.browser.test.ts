// The governor playground (playground.html) in a real headless Chromium (Debian's
// /usr/bin/chromium via playwright-core), served by the real demo server: a history is pasted
// through the clipboard, governed in the page by the bundled governor, and what the page shows is
// checked at 390, 800 and 1280 px — nothing wider than the window, the changed messages listed
// with their rules, a legality verdict for every provider target, the request — and no request
// reaches the server's API. Bad input gives a clear error and loses nothing typed. Screenshots go
// to apps/web/test-output/playground-<width>.png. No Chromium means failure, never a skip.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GOVERN_TARGETS } from '@nanobot/governor';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_DIR, OUTPUT_DIR, openChromiumPage, requireBrowserTestSetup, type ChromiumPage } from './test-support/chromium-page.js';
import { startTestDemo } from './test-support/demo-fixture.js';

const SESSION = 'All-Hands-AI-OpenHands__multi-swe-bench-ponyc-4593.json';
const SESSION_TEXT = readFileSync(join(process.env.NANOBOT_FIXTURES_DIR!, 'transcripts', SESSION), 'utf8');
const SESSION_MESSAGES = (JSON.parse(SESSION_TEXT) as unknown[]).length;

let demo: Awaited<ReturnType<typeof startTestDemo>>;
let browser: ChromiumPage;
let page: Page;
/** Every URL the page asked the server for. */
const requested: string[] = [];

beforeAll(async () => {
  requireBrowserTestSetup();
  demo = await startTestDemo({ clientDir: CLIENT_DIR });
  browser = await openChromiumPage({ width: 1280, height: 900 });
  page = browser.page;
  await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: demo.url });
  page.on('request', (r) => requested.push(new URL(r.url()).pathname));
  await page.goto(new URL('/playground.html', demo.url).href);
  await page.waitForSelector('body[data-ready]');
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await demo?.dispose();
});

/** Pastes `text` into the history box as a person does: through the clipboard and Ctrl+V. */
async function paste(text: string): Promise<void> {
  await page.fill('[data-testid=history-input]', '');
  await page.evaluate((t) => navigator.clipboard.writeText(t), text);
  await page.focus('[data-testid=history-input]');
  await page.keyboard.press('Control+V');
  await page.waitForFunction((n) => (document.querySelector('[data-testid=history-input]') as HTMLTextAreaElement).value.length === n, text.length);
}

async function govern(expected: 'done' | 'error'): Promise<void> {
  await page.click('[data-testid=govern]');
  await page.waitForSelector(`body[data-state=${expected}]`);
}

async function noSidewaysScroll(width: number): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  // Every drawn block of the result lies inside the window.
  for (const testid of ['summary', 'changes', 'compare', 'legality', 'request', 'govern', 'history-input']) {
    const box = await page.locator(`[data-testid=${testid}]`).first().boundingBox();
    expect(box, testid).not.toBeNull();
    expect(box!.x, testid).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, testid).toBeLessThanOrEqual(width + 0.5);
  }
}

describe('the governor playground in Chromium', { timeout: 180_000 }, () => {
  it('bad input gives a clear error on the page and loses nothing typed, even across a reload', async () => {
    const broken = '[\n  {"role": "user", "content": "hello"},\n  {"role": "assistant", "content": }\n]';
    await paste(broken);
    await govern('error');
    await expect(page.locator('[data-testid=error]').textContent()).resolves.toMatch(/Cannot govern this: This is not valid JSON: Unexpected token '\}'.*Your text is kept/s);
    expect(await page.inputValue('[data-testid=history-input]')).toBe(broken);
    const unknown = '{"conversation": [{"speaker": "me", "text": "hi"}]}';
    await paste(unknown);
    await govern('error');
    await expect(page.locator('[data-testid=error]').textContent()).resolves.toMatch(/an object without a history.*keys conversation/);
    const noRole = '[{"speaker": "me", "text": "hi"}]';
    await paste(noRole);
    await govern('error');
    await expect(page.locator('[data-testid=error]').textContent()).resolves.toMatch(/Item 0 has no role \(keys: speaker, text\): this does not look like a chat history/);
    // A bad budget is refused the same way.
    await paste('[{"role": "user", "content": "hi"}]');
    await page.fill('[data-testid=budget]', '-5');
    await govern('error');
    await expect(page.locator('[data-testid=error]').textContent()).resolves.toMatch(/Input budget must be a positive number of tokens, not "-5"/);
    // What was typed survives a reload (kept in localStorage).
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    expect(await page.inputValue('[data-testid=history-input]')).toBe('[{"role": "user", "content": "hi"}]');
    expect(await page.inputValue('[data-testid=budget]')).toBe('-5');
    expect(browser.problems).toEqual([]);
  });

  for (const [width, height] of [[390, 844], [800, 900], [1280, 900]] as const) {
    it(`at ${width} px: paste → govern → inspect shows the changes with their rules, every target's verdict and the request, all inside the window`, async () => {
      await page.setViewportSize({ width, height });
      await page.reload();
      await page.waitForSelector('body[data-ready]');
      const apiBefore = requested.filter((p) => p.startsWith('/api/')).length;
      await paste(SESSION_TEXT);
      await page.selectOption('[data-testid=target]', 'anthropic');
      await page.selectOption('[data-testid=model]', 'claude-sonnet-4-6');
      await page.fill('[data-testid=budget]', '6000');
      await govern('done');

      // The summary: the whole session read, cut to fit the budget.
      await expect(page.locator('[data-testid=fits] strong').textContent()).resolves.toBe('yes');
      const counts = (await page.locator('[data-testid=counts]').textContent())!;
      expect(counts).toMatch(new RegExp(`of the ${SESSION_MESSAGES} messages sent; \\d+ snipped; 1 backfilled`));
      expect(counts).toContain('OpenAI chat read as');

      // What changed: the cut and the backfilled result, each with its reason.
      const actions = await page.locator('[data-testid=changes] li').evaluateAll((lis) => lis.map((li) => ({ action: li.getAttribute('data-action'), why: li.querySelector('.pg-why')?.textContent ?? '' })));
      expect(actions.map((a) => a.action)).toEqual(expect.arrayContaining(['snipped', 'backfilled']));
      for (const a of actions) expect(a.why.length).toBeGreaterThan(20);

      // Before → after: every changed message listed with the rule behind it and its token bars.
      const changed = await page.locator('[data-testid=changed-row]').evaluateAll((rows) =>
        rows.map((r) => ({ status: r.getAttribute('data-status'), count: Number(r.getAttribute('data-count')), rules: [...r.querySelectorAll('.pg-rule')].map((x) => x.textContent ?? ''), bars: [...r.querySelectorAll('.pg-bar span')].map((x) => x.textContent) })),
      );
      // The snipped messages are all listed (grouped under their rule), as many as the counts say.
      const snipped = Number(/(\d+) snipped/.exec(counts)![1]);
      expect(snipped).toBeGreaterThan(10);
      expect(changed.filter((r) => r.status === 'removed').reduce((n, r) => n + r.count, 0)).toBe(snipped);
      expect(await page.locator('[data-testid=grouped-row]').count()).toBe(snipped);
      const added = changed.filter((r) => r.status === 'added');
      expect(added).toHaveLength(1);
      expect(added[0].rules[0]).toMatch(/^backfilled/);
      expect(added[0].bars[0]).toBe('–');
      for (const row of changed) {
        expect(row.rules.length).toBeGreaterThan(0);
        for (const rule of row.rules) expect(rule.length).toBeGreaterThan(20);
      }
      const removedRules = changed.filter((r) => r.status === 'removed').map((r) => r.rules[0]);
      expect(removedRules.some((rule) => rule.startsWith('snipped') && rule.includes('snipHistory'))).toBe(true);

      // A verdict for every provider target, on the history and on the request.
      const verdicts = await page.locator('[data-testid=legality] tbody tr').evaluateAll((rows) =>
        rows.map((r) => ({ target: r.getAttribute('data-target'), before: r.querySelector('[data-testid=verdict-before]')?.getAttribute('data-verdict'), after: r.querySelector('[data-testid=verdict-after]')?.getAttribute('data-verdict'), text: r.textContent ?? '' })),
      );
      expect(verdicts.map((v) => v.target)).toEqual([...GOVERN_TARGETS]);
      const anthropic = verdicts.find((v) => v.target === 'anthropic')!;
      expect(anthropic).toMatchObject({ before: 'illegal', after: 'legal' });
      expect(anthropic.text).toMatch(/unanswered-tool-call/);
      expect(anthropic.text).toMatch(/over-budget/);
      for (const v of verdicts) expect(['legal', 'illegal']).toContain(v.after);

      // The request: govern's copy, as many messages as the summary says were sent.
      const request = (await page.locator('[data-testid=request] pre').textContent())!;
      const body = JSON.parse(request) as { messages: { role: string }[] };
      const [, after] = /→ (\d+)/.exec((await page.locator('[data-testid=summary] .pg-figure').first().textContent())!)!;
      expect(body.messages).toHaveLength(Number(after));
      expect(body.messages[0].role).toBe('system');

      // Nothing runs off the side, and the result was computed here: no API request.
      await noSidewaysScroll(width);
      expect(requested.filter((p) => p.startsWith('/api/')).length).toBe(apiBefore);
      await page.locator('[data-testid=changes]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(OUTPUT_DIR, `playground-${width}.png`) });
      expect(browser.problems).toEqual([]);
    });
  }

  it('an Anthropic history governed for Anthropic: the request is governAnthropic\'s native body', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const history = {
      system: 'You are terse.',
      messages: [
        { role: 'user', content: 'What is in src?' },
        { role: 'assistant', content: [{ type: 'text', text: '   ' }, { type: 'tool_use', id: 'toolu_01', name: 'list_dir', input: { path: 'src' } }] },
        { role: 'user', content: 'Never mind that. And the tests?' },
      ],
    };
    await paste(JSON.stringify(history, null, 2));
    await page.fill('[data-testid=budget]', '');
    await page.selectOption('[data-testid=target]', 'anthropic');
    await govern('done');
    await expect(page.locator('[data-testid=request] .pg-via').textContent()).resolves.toMatch(/^governAnthropic/);
    const body = JSON.parse((await page.locator('[data-testid=request] pre').textContent())!) as { system: string; messages: { role: string; content: { type: string; text?: string; tool_use_id?: string }[] }[] };
    expect(body.system).toBe('You are terse.');
    // The blank text block is gone, and the call is answered first in the next user turn, whose text stays.
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(body.messages[1].content.map((b) => b.type)).toEqual(['tool_use']);
    expect(body.messages[2].content.map((b) => b.type)).toEqual(['tool_result', 'text']);
    expect(body.messages[2].content[0].tool_use_id).toBe('toolu_01');
    expect(body.messages[2].content[1].text).toBe('Never mind that. And the tests?');
    await expect(page.locator('[data-testid=counts]').textContent()).resolves.toContain('Anthropic Messages read as');
    const rules = await page.locator('[data-testid=changed-row] .pg-rule').allTextContents();
    expect(rules.some((r) => r.startsWith('backfilled'))).toBe(true);
    const before = page.locator('[data-testid=legality] tr[data-target=anthropic] [data-testid=verdict-before]');
    await expect(before.getAttribute('data-verdict')).resolves.toBe('illegal');
    await expect(before.textContent()).resolves.toMatch(/unanswered-tool-call/);
    await expect(page.locator('[data-testid=legality] tr[data-target=anthropic] [data-testid=verdict-after]').getAttribute('data-verdict')).resolves.toBe('legal');
    expect(browser.problems).toEqual([]);
  });

  it('a dropped AI SDK file and a pasted Responses history go through their own dialects', async () => {
    const aiSdk = [
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_w', toolName: 'weather', input: { city: 'Paris' } }] },
      { role: 'user', content: 'Thanks, and in Rome?' },
    ];
    await page.fill('[data-testid=history-input]', '');
    await page.selectOption('[data-testid=target]', 'gemini');
    const dataTransfer = await page.evaluateHandle((text) => {
      const dt = new DataTransfer();
      dt.items.add(new File([text], 'history.json', { type: 'application/json' }));
      return dt;
    }, JSON.stringify(aiSdk));
    await page.dispatchEvent('[data-testid=history-input]', 'drop', { dataTransfer });
    await page.waitForFunction(() => document.querySelector('[data-testid=request] .pg-via')?.textContent?.startsWith('governModelMessages') === true);
    expect(await page.inputValue('[data-testid=history-input]')).toBe(JSON.stringify(aiSdk));
    const aiBody = JSON.parse((await page.locator('[data-testid=request] pre').textContent())!) as { messages: { role: string; content: unknown }[] };
    // The unanswered call got a tool-result message right after it (Gemini's rules: no user message right after it).
    expect(aiBody.messages[2].role).toBe('tool');
    expect(JSON.stringify(aiBody.messages[2].content)).toContain('call_w');
    await expect(page.locator('[data-testid=counts]').textContent()).resolves.toContain('AI SDK ModelMessage read as');

    const responses = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }] },
      { type: 'function_call', call_id: 'call_1', name: 'weather', arguments: '{}' },
    ];
    await paste(JSON.stringify({ model: 'gpt-4o', input: responses }));
    await page.selectOption('[data-testid=target]', 'responses');
    await page.selectOption('[data-testid=model]', 'gpt-4o');
    await govern('done');
    await expect(page.locator('[data-testid=request] .pg-via').textContent()).resolves.toMatch(/^governResponses/);
    const rBody = JSON.parse((await page.locator('[data-testid=request] pre').textContent())!) as { input: { type?: string; call_id?: string }[] };
    expect(rBody.input.map((i) => i.type)).toEqual(['message', 'function_call', 'function_call_output']);
    expect(rBody.input[2].call_id).toBe('call_1');
    await expect(page.locator('[data-testid=legality] tr[data-target=responses] [data-testid=verdict-after]').getAttribute('data-verdict')).resolves.toBe('legal');
    expect(browser.problems).toEqual([]);
  });

  it('a recorded session replaces the text, governs at once, and the typed text is one click away', async () => {
    const typed = '[{"role": "user", "content": "my own draft"}]';
    await paste(typed);
    await page.selectOption('[data-testid=session-pick]', 'sierra-research-tau-bench__gpt-4o-airline-task33-trial2.json');
    await page.waitForSelector('body[data-state=done]');
    await page.waitForFunction(() => (document.querySelector('[data-testid=history-input]') as HTMLTextAreaElement).value.includes('Airline Agent Policy'));
    await expect(page.locator('[data-testid=summary]').textContent()).resolves.toMatch(/62 →/);
    await page.click('[data-testid=restore-text]');
    expect(await page.inputValue('[data-testid=history-input]')).toBe(typed);
    expect(requested).toContain('/sessions/sierra-research-tau-bench__gpt-4o-airline-task33-trial2.json');
    expect(requested.filter((p) => p.startsWith('/api/'))).toEqual([]);
    expect(browser.problems).toEqual([]);
  });
});
