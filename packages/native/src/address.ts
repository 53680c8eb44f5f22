import { z } from 'zod';
import { ReaError } from '@rea/evidence';

/** A parsed native address: an address space (null for the default space) and an offset in it. */
export interface NativeAddress {
  space: string | null;
  offset: number;
}

const DEFAULT = /^0x[0-9a-f]+$/;
const SPACED = /^([A-Za-z0-9%._~-]+):(0x[0-9a-f]+)$/;

/**
 * Formats an address: the default space as lowercase `0x` hex (`0x401000`), any other space as
 * `<percent-encoded space>:0x<hex>` (`ram:0x1000`). Throws `invalid_request` for a negative or unsafe offset.
 */
export function formatAddress(offset: number, space: string | null = null): string {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new ReaError('invalid_request', `${offset} is not a valid native address offset.`, {
      details: { reason: 'invalid-address', offset: String(offset) },
    });
  }
  const hex = `0x${offset.toString(16)}`;
  return space === null ? hex : `${encodeURIComponent(space)}:${hex}`;
}

/**
 * Parses an address in the canonical format (see {@link formatAddress}). Uppercase hex digits and a
 * bare decimal are refused: the format is canonical so equal addresses compare equal as strings.
 * Throws `invalid_request` (`details.reason: "invalid-address"`).
 */
export function parseAddress(text: string): NativeAddress {
  const spaced = SPACED.exec(text);
  const hex = spaced ? spaced[2]! : DEFAULT.test(text) ? text : null;
  if (hex === null) {
    throw new ReaError('invalid_request', `"${text}" is not a native address (expected lowercase 0x hex).`, {
      details: { reason: 'invalid-address', address: text },
      remediation:
        'Write the address as lowercase hexadecimal after 0x, as REA reports addresses: 0x401000, not 0X401000, 401000 or 4198400.',
    });
  }
  const offset = Number.parseInt(hex.slice(2), 16);
  if (!Number.isSafeInteger(offset)) {
    throw new ReaError('invalid_request', `Address ${text} is beyond the exactly representable range.`, {
      details: { reason: 'invalid-address', address: text },
    });
  }
  let space: string | null = null;
  if (spaced) {
    try {
      space = decodeURIComponent(spaced[1]!);
    } catch {
      throw new ReaError('invalid_request', `"${text}" has an invalid percent-encoded address space.`, {
        details: { reason: 'invalid-address', address: text },
      });
    }
  }
  return { space, offset };
}

/** Schema of an address string in the canonical native format. */
export const AddressSchema = z
  .string()
  .regex(/^(?:[A-Za-z0-9%._~-]+:)?0x[0-9a-f]+$/, 'lowercase 0x hex, optionally prefixed by "<space>:"')
  .describe('Native address: lowercase 0x hex (e.g. "0x401000"); other address spaces as "<space>:0x<hex>".');
