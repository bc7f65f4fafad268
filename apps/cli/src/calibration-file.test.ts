import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CALIBRATION_FILE, openCalibrationFile, readCalibrationFile } from './calibration-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function temp(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cli-calibration-'));
  dirs.push(dir);
  return dir;
}

describe('openCalibrationFile', () => {
  it('starts fresh, saves, and a later process restores what was learned', () => {
    const path = join(temp(), 'nested', CALIBRATION_FILE);
    const first = openCalibrationFile(path);
    expect(first.calibrator.ratio('gpt-4o')).toBeNull();
    first.calibrator.observe({ model: 'gpt-4o', estimated: 1000, actual: 1200 });
    first.save();
    const second = openCalibrationFile(path);
    expect(second.calibrator.calibrate('gpt-4o', 1000)).toBe(first.calibrator.calibrate('gpt-4o', 1000));
    expect(second.calibrator.calibrate('gpt-4o', 1000)).toBeGreaterThan(1000);
  });

  it('moves a bad file aside, says so, and starts fresh', () => {
    const path = join(temp(), CALIBRATION_FILE);
    writeFileSync(path, '{"version": 9}');
    const notices: string[] = [];
    const file = openCalibrationFile(path, (t) => notices.push(t));
    expect(file.calibrator.toJSON()).toEqual({ version: 1, models: {} });
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/not a usage calibration .*unknown state version 9.*moved it to .*\.bad/);
    expect(readFileSync(`${path}.bad`, 'utf8')).toBe('{"version": 9}');
    expect(existsSync(path)).toBe(false);
  });

  it('reports a failed save instead of throwing', () => {
    const dir = temp();
    writeFileSync(join(dir, 'file'), 'x');
    const notices: string[] = [];
    const file = openCalibrationFile(join(dir, 'file', CALIBRATION_FILE), (t) => notices.push(t));
    expect(() => file.save()).not.toThrow();
    expect(notices[0]).toMatch(/could not save the usage calibration/);
  });

  it('readCalibrationFile reads what was saved and leaves a bad file where it is', () => {
    const dir = temp();
    const path = join(dir, CALIBRATION_FILE);
    expect(readCalibrationFile(path)).toBeNull();
    const saved = openCalibrationFile(path);
    saved.calibrator.observe({ model: 'gpt-4o', estimated: 1000, actual: 1200 });
    saved.save();
    expect(readCalibrationFile(path)?.calibrate('gpt-4o', 1000)).toBe(saved.calibrator.calibrate('gpt-4o', 1000));
    writeFileSync(path, 'not json');
    const notices: string[] = [];
    expect(readCalibrationFile(path, (t) => notices.push(t))).toBeNull();
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(/not a usage calibration/);
    expect(readFileSync(path, 'utf8')).toBe('not json');
    expect(existsSync(`${path}.bad`)).toBe(false);
  });
});
