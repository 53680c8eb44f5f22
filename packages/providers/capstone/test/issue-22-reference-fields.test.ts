// referenceFields changes how V8 stores the named fields of a record (as references, so that reading a
// large number or NaN from them allocates nothing in code V8 has not optimized), never what they hold.
import { describe, expect, it } from '@jest/globals';
import { referenceFields } from '../src/analysis/fields.js';
import { measured, readX86_64 } from '../src/analysis/fastX86.js';

describe('issue 22: number fields kept as references', () => {
  it('should return the record with every value as it was', () => {
    const record = { small: 7, nan: Number.NaN, wide: 2 ** 40 + 3, other: 'x' };
    expect(referenceFields(record, 'small', 'nan', 'wide')).toBe(record);
    expect(record).toEqual({ small: 7, nan: Number.NaN, wide: 2 ** 40 + 3, other: 'x' });
    record.small = 2 ** 31;
    record.wide = -1;
    expect(record.small).toBe(2 ** 31);
    expect(record.wide).toBe(-1);
  });

  it('should leave the x86 reader recording targets and references of any size', () => {
    // mov rax, 0x11223344556677 (an immediate below 2^53, which the reader keeps as a referenced value).
    expect(readX86_64(Buffer.from('48b87766554433221100', 'hex'), 0, 10, 0x1000)).toBe(10);
    expect(measured.ref).toBe(0x11223344556677);
    // call 0x1000 + 5 + 0x7ffffff0, past 2^31.
    expect(readX86_64(Buffer.from('e8f0ffff7f', 'hex'), 0, 5, 0x1000)).toBe(5);
    expect(measured.target).toBe(0x1000 + 5 + 0x7ffffff0);
  });
});
