import { listProviders } from '@nanobot/providers';
import { describe, expect, it } from 'vitest';
import { formatProviders } from './format-providers.js';

const overview = listProviders({ env: { DEEPSEEK_API_KEY: 'k' }, providers: { corp: { apiBase: 'https://llm.corp.example/v1' } } });

describe('formatProviders', () => {
  it('one row per provider with its key variable and base URL, configured ones marked, and what a run would use', () => {
    const text = formatProviders(overview, 120);
    const lines = text.trimEnd().split('\n');
    expect(lines[0]).toBe('47 providers, 2 configured (✓).');
    expect(lines[1]).toMatch(/^A run now uses deepseek with model deepseek-v4-flash \(chosen by fallback\)/);
    const deepseek = lines.find((l) => /^\S \s*deepseek /.test(l) || l.startsWith('✓ deepseek'))!;
    expect(deepseek).toMatch(/^✓ deepseek\s+DEEPSEEK_API_KEY\s+https:\/\/api\.deepseek\.com$/);
    expect(lines[lines.indexOf(deepseek) + 1].trim()).toBe('configured by DEEPSEEK_API_KEY');
    expect(lines.find((l) => l.includes(' gemini '))).toMatch(/GEMINI_API_KEY\s+https:\/\/generativelanguage\.googleapis\.com\/v1beta\/openai\/$/);
    expect(lines.find((l) => l.startsWith('✗ github_copilot'))).toBeDefined();
    expect(text).toContain('refused: signs in with OAuth');
    // Columns line up: every row's key variable starts at the same place.
    const starts = lines.filter((l) => /_API_KEY|HF_TOKEN/.test(l) && !l.includes('configured by')).map((l) => l.search(/[A-Z][A-Z_]*(_API_KEY|_TOKEN)/));
    expect(new Set(starts).size).toBe(1);
  });

  it('fits a narrow terminal: the URL moves under the name and no line is wider than the terminal', () => {
    for (const width of [40, 60, 80]) {
      const lines = formatProviders(overview, width).trimEnd().split('\n');
      expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(width);
    }
    const narrow = formatProviders(overview, 50).split('\n');
    const at = narrow.findIndex((l) => l.startsWith('✓ deepseek'));
    expect(narrow[at]).toMatch(/^✓ deepseek\s+DEEPSEEK_API_KEY$/);
    expect(narrow[at + 1].trim()).toBe('https://api.deepseek.com');
  });

  it('without a width limit (a pipe) nothing is clipped', () => {
    expect(formatProviders(overview, Number.POSITIVE_INFINITY)).not.toContain('…');
  });

  it('says how to configure one when nothing is', () => {
    expect(formatProviders(listProviders({ env: {} }), 100)).toContain('Nothing is configured: set a key variable below');
  });
});
