// One large record of a bundle (an inventory of tens of thousands of entries) is read a piece at a
// time, not in one JSON.parse: its large objects and arrays are assembled from batches of their small
// members with turns of the event loop between them. The value is exactly what JSON.parse gives (key
// order, duplicate keys, `__proto__`, numbers, escapes), malformed text is refused as JSON.parse
// refuses it, and a cancel in the middle of the record ends the parse as `cancelled`.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportBundle, importBundle } from '@rea/evidence';
import { turnProbe } from '@rea/test-helpers';
import { parseJsonInSlices } from '../src/jsonSlices.js';
import { functionRecord } from './records.js';

const decode = (bytes: Buffer): string => bytes.toString('utf8');

/** Parses `text` with a turn at every checkpoint, counting turns of the event loop. */
async function sliced(
  text: string,
  signal?: AbortSignal,
): Promise<{ value?: unknown; error?: unknown; turns: number }> {
  const probe = turnProbe();
  try {
    return await parseJsonInSlices(Buffer.from(text, 'utf8'), {
      signal,
      phase: 'bundle parse',
      decode,
      sliceMs: 0,
    }).then(
      (value) => ({ value, turns: probe.turns() }),
      (error: unknown) => ({ error, turns: probe.turns() }),
    );
  } finally {
    probe.stop();
  }
}

/** Equal as JSON.parse's results are: same types, numbers by Object.is, same own keys in the same order. */
function same(a: unknown, b: unknown, at = '$'): void {
  if (typeof a !== 'object' || a === null || typeof b !== 'object' || b === null) {
    if (!Object.is(a, b))
      throw new Error(
        `${at}: ${typeof a} ${String(a).slice(0, 40)} differs from ${typeof b} ${String(b).slice(0, 40)}`,
      );
    return;
  }
  if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b))
    throw new Error(`${at}: different kinds`);
  const keysA = Reflect.ownKeys(a);
  const keysB = Reflect.ownKeys(b);
  if (keysA.join('\u0000') !== keysB.join('\u0000'))
    throw new Error(`${at}: keys ${keysA.join().slice(0, 200)} vs ${keysB.join().slice(0, 200)}`);
  for (const key of keysA) same(Reflect.get(a, key), Reflect.get(b, key), `${at}.${String(key)}`);
}

// Small members of every kind JSON has, repeated into arrays and objects well past the piece sizes.
const SCALARS =
  '[-0, 0.1, 1e400, -1E-400, 5e-324, 1.7976931348623157e308, 123456789012345678901234567890, 1E+2, true, false, null,' +
  ' "a\\"]},[{:", "\\u0041\\ud83d\\ude00\\ud800\\n\\t\\/\\\\", "\u00e9\u{1F600}", {}, [], {"__proto__": {"x": 1}}]';
const bigArray = (n: number, item = SCALARS): string =>
  `[\n${Array.from({ length: n }, () => item).join(' ,\r\n\t')}\n]`;
const bigObject = (n: number, prefix: string): string =>
  `{${Array.from({ length: n }, (_, i) => `"${prefix}${i}" : ${SCALARS}`).join(',')}}`;
const LARGE = bigArray(2000);

const DOCUMENTS: Array<[string, string]> = [
  ['an array of small items', LARGE],
  [
    'large members between small ones',
    `{"a": 1, "big": ${LARGE}, "z": {"k\\u0041": "v"}, "obj": ${bigObject(2000, 'k')}}`,
  ],
  [
    'duplicate keys, large and small, and __proto__',
    `{"d": ${LARGE}, "10": 1, "__proto__": ${LARGE}, "2": ${LARGE}, "d": 2, "e": 3, "e": ${LARGE}, "f": ${LARGE}, "f": ${bigObject(2000, 'f')}, "-1": 0, "01": 0, "__proto__": 7}`,
  ],
  [
    'nested large containers',
    `[${LARGE}, {"in": [${LARGE}, [[${LARGE}]]]}, 0, "${'x'.repeat(300_000)}", ${bigObject(2000, '')}]`,
  ],
  ['one long string', ` "${'\\"y\\u00e9'.repeat(100_000)}" `],
];

describe('issue 15: one large bundle record is read a piece at a time', () => {
  it.each(DOCUMENTS)('should give what JSON.parse gives for %s, with turns while it parses', async (_, text) => {
    for (const document of [text, `{"format": "rea-evidence-bundle", "records": [${text}], "version": 1}`]) {
      const { value, error, turns } = await sliced(document);
      expect(error).toBeUndefined();
      same(value, JSON.parse(document));
      // A container longer than 256 KiB is never one JSON.parse: its bytes are scanned with a turn every
      // 64 KiB, then parsed in batches of about 64 KiB with a turn after each.
      if (!text.startsWith(' "')) expect(turns).toBeGreaterThan((1.5 * Buffer.byteLength(document)) / (1 << 16));
    }
  });

  it.each([
    ['a trailing comma after a large item', `[${LARGE}, ]`],
    ['an empty item before a large one', `[ , ${LARGE}]`],
    ['two large items without a comma', `[${LARGE} ${LARGE}]`],
    ['a small item glued to a large one', `[1 ${LARGE}]`],
    ['a large member without a colon', `{"a" ${LARGE}}`],
    ['a large member without a key', `{${LARGE}}`],
    ['a large member whose key is a number', `{1: ${LARGE}}`],
    ['a large member with two colons', `{"a":: ${LARGE}}`],
    ['a control character in a key', `{"a\u0001": ${LARGE}}`],
    ['a form feed before a large value', `{"a":\f${LARGE}}`],
    ['a missing comma after a large member', `{"a": ${LARGE} "b": 1}`],
    ['a trailing comma in a large object', `{"a": ${LARGE},}`],
    ['an empty item between small ones', `[${LARGE.slice(1, -1)}, , 1]`],
    ['a leading zero among small items', `[${LARGE.slice(1, -1)}, 01]`],
    ['an unterminated string among small items', `[${LARGE.slice(1, -1)}, "a\\"]`],
    ['an extra bracket', `[${LARGE}]]`],
    ['an unclosed large array', `[${LARGE}`],
    ['text after the value', `${LARGE} x`],
    ['a byte order mark before the value', `\ufeff${LARGE}`],
  ])('should refuse %s as malformed JSON', async (_, text) => {
    for (const document of [text, `{"records": [${text}]}`]) {
      expect(() => JSON.parse(document)).toThrow();
      const { error } = await sliced(document);
      expect(error).toMatchObject({ code: 'invalid_request', details: { reason: 'malformed-json' } });
    }
  });

  it('should resolve a key given twice at the top as JSON.parse does, and refuse non-JSON whitespace', async () => {
    for (const text of ['{"records": [1], "records": 2}', '{"a": 1, "records": [1], "b": [2], "a": [3]}']) {
      same((await sliced(text)).value, JSON.parse(text));
    }
    const { error } = await sliced('{"records": [\f]}');
    expect(error).toMatchObject({ code: 'invalid_request', details: { reason: 'malformed-json' } });
  });

  it('should end as cancelled in the middle of one large record when the signal is aborted meanwhile', async () => {
    const text = `{"records": [${DOCUMENTS[1]![1]}]}`;
    const controller = new AbortController();
    let turns = 0;
    const tick = (): void => {
      turns += 1;
      if (turns === 20) controller.abort();
      else if (!controller.signal.aborted) setImmediate(tick);
    };
    setImmediate(tick);
    const { error } = await sliced(text, controller.signal);
    expect(error).toMatchObject({ code: 'cancelled', details: { phase: 'bundle parse' } });
  });

  describe('importBundle', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'rea-large-record-'));
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('should import a bundle of large records as they were exported', async () => {
      const records = [
        functionRecord('0x401000', 6000),
        functionRecord('0x402000', 1),
        functionRecord('0x403000', 9000),
      ];
      const bundle = join(dir, 'large.json');
      await exportBundle(records, bundle);
      const imported = await importBundle(bundle);
      expect(imported.records).toEqual(records);
    });
  });
});
