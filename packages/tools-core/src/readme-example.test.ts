// Keeps the README example honest: the same code, run.
import { expect, it } from 'vitest';
import { z } from 'zod';
import { Tool, createToolContext, defineTool, toolResult } from './index.js';

it('README example runs', async () => {
  const weather = defineTool({
    name: 'weather',
    description: 'Current weather for a city',
    readOnly: true,
    parameters: z.object({
      city: z.string().min(2).describe('City name'),
      unit: z.enum(['C', 'F']).default('C'),
    }),
    async execute({ city, unit }, ctx) {
      ctx.emit({ type: 'progress', message: `looking up ${city}` });
      if (city === 'Atlantis') return toolResult.error(`Error: no station in ${city}`);
      return `21°${unit} and sunny in ${city} (asked from ${ctx.channel}:${ctx.chatId})`;
    },
  });
  expect(weather.toSchema().function.parameters).toMatchObject({ type: 'object', required: ['city'] });
  const parsed = weather.parseArgs({ city: 'Oslo' });
  expect(parsed).toEqual({ ok: true, value: { city: 'Oslo', unit: 'C' } });
  if (parsed.ok) {
    expect(await weather.execute(parsed.value, createToolContext({ chatId: '42' }))).toBe('21°C and sunny in Oslo (asked from cli:42)');
  }
  class Clock extends Tool {
    readonly name = 'clock';
    readonly description = 'The current UTC time';
    readonly parameters = null;
    override readonly readOnly = true;
    execute() {
      return new Date().toISOString();
    }
  }
  expect(new Clock().concurrencySafe).toBe(true);
});

it('README "Traits" example runs', () => {
  const readLog = defineTool({
    name: 'read_log',
    description: 'Read lines of the service log',
    readOnly: true,
    compactable: true,
    rereadable: { offsetParam: 'from', limitParam: 'lines', unit: 'lines', firstOffset: 1 },
    parameters: z.object({ from: z.number().int().min(1).optional(), lines: z.number().int().optional() }),
    execute: ({ from = 1, lines = 200 }) => `lines ${from}–${from + lines - 1} …`,
  });
  expect(readLog.traits.rereadable?.offsetParam).toBe('from');
  expect(readLog.traits).toMatchObject({ readOnly: true, compactable: true });
});
