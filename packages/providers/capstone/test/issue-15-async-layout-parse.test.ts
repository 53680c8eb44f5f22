/*
 * Opening a binary parses its layout without holding the event loop: between the open's "parsing the
 * layout" and "analysing the code" reports other queued callbacks run (the parser gives a turn at
 * every phase and every ten milliseconds of work), and a cancel sent while the layout is parsed ends
 * the open as `cancelled` before any analysis starts.
 */
import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createCapstoneProvider } from '@rea/provider-capstone';
import type { OpenOptions } from '@rea/provider-kit';
import { isReaError } from '@rea/evidence';
import { compileFixture } from '@rea/test-helpers';
import { FIXTURES } from './support.js';

function fixture(): string {
  return compileFixture({
    source: join(FIXTURES, 'sample.c'),
    compiler: 'gcc',
    args: ['-O2', '-g', '-fno-inline'],
    output: 'sample-x64',
  });
}

/** Opens `path`, counting turns of the event loop; `onParsing` runs when the layout parse starts. */
async function openCounting(path: string, controller: AbortController, onParsing: () => void = () => undefined) {
  const bytes = readFileSync(path);
  const target = { path, format: 'elf', sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length };
  let turns = 0;
  let ticking = true;
  const tick = (): void => {
    turns += 1;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  const reports: Array<{ message: string; turns: number }> = [];
  const progress = {
    report: (message: string) => {
      reports.push({ message, turns });
      if (message === 'parsing the layout') onParsing();
    },
  };
  const open = { signal: controller.signal, progress } as unknown as OpenOptions;
  try {
    const session = await createCapstoneProvider().open(target, open);
    await session.close(new AbortController().signal);
    return { outcome: 'open' as const, reports };
  } catch (error) {
    return { outcome: error, reports };
  } finally {
    ticking = false;
  }
}

describe('issue 15: the Capstone open parses the layout cooperatively', () => {
  it('should let the event loop turn while the layout is parsed', async () => {
    const { outcome, reports } = await openCounting(fixture(), new AbortController());
    expect(outcome).toBe('open');
    expect(reports.map((r) => r.message)).toEqual(['parsing the layout', 'analysing the code']);
    // At least one queued callback ran between the start and the end of the parse.
    expect(reports[1]!.turns).toBeGreaterThan(reports[0]!.turns);
  }, 120_000);

  it('should end as cancelled, before any analysis, when cancelled while the layout is parsed', async () => {
    const controller = new AbortController();
    const { outcome, reports } = await openCounting(fixture(), controller, () =>
      setImmediate(() => controller.abort(new Error('stop'))),
    );
    expect(isReaError(outcome) && outcome.code).toBe('cancelled');
    expect(reports.map((r) => r.message)).toEqual(['parsing the layout']);
  }, 120_000);
});
