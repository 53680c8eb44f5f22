import { describe, expect, it } from '@jest/globals';
import { parseBinaryLayout, parseBinaryLayoutAsync } from '@rea/artifact';
import { bigElf } from '../helpers/bigElf.js';

const elf = bigElf(20_000);

describe('issue 15: parseBinaryLayoutAsync parses bytes in memory cooperatively', () => {
  it('should give the event loop turns while parsing and return the synchronous parse result', async () => {
    let turns = 0;
    let ticking = true;
    const tick = (): void => {
      turns += 1;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    // The probe stops however the parse ends.
    const layout = await parseBinaryLayoutAsync(elf).finally(() => {
      ticking = false;
    });
    expect(turns).toBeGreaterThan(0);
    // Everything but the `readAt` closure, which is per parse.
    const { readAt, ...rest } = layout;
    const { readAt: expectedReadAt, ...expected } = parseBinaryLayout(elf);
    expect(rest).toEqual(expected);
    expect(readAt(0x1000, 16)).toEqual(expectedReadAt(0x1000, 16));
  });

  it('should end as cancelled when the signal is aborted at a turn', async () => {
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    await expect(parseBinaryLayoutAsync(elf, { signal: controller.signal })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });
});
