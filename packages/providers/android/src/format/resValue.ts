/** A typed resource value (Res_value) as binary XML and resources.arsc store it. */
export interface ResValue {
  type: number;
  data: number;
}

/** Res_value data types this package interprets. */
export const VALUE = Object.freeze({
  NULL: 0x00,
  REFERENCE: 0x01,
  ATTRIBUTE: 0x02,
  STRING: 0x03,
  FLOAT: 0x04,
  DIMENSION: 0x05,
  FRACTION: 0x06,
  DYNAMIC_REFERENCE: 0x07,
  INT_DEC: 0x10,
  INT_HEX: 0x11,
  BOOLEAN: 0x12,
});

/** A resource id as written in XML: `@0x7f040001`. */
export function referenceText(id: number, prefix = '@'): string {
  return `${prefix}0x${(id >>> 0).toString(16).padStart(8, '0')}`;
}

/**
 * The text of a typed value that needs no string pool or resource table: integers in decimal, booleans,
 * references as `@0x…`, floats; colors and other types as hex.
 */
export function valueText(value: ResValue): string {
  switch (value.type) {
    case VALUE.NULL:
      return '';
    case VALUE.REFERENCE:
    case VALUE.DYNAMIC_REFERENCE:
      return referenceText(value.data);
    case VALUE.ATTRIBUTE:
      return referenceText(value.data, '?');
    case VALUE.INT_DEC:
      return String(value.data | 0);
    case VALUE.BOOLEAN:
      return value.data !== 0 ? 'true' : 'false';
    case VALUE.FLOAT: {
      const b = Buffer.alloc(4);
      b.writeUInt32LE(value.data >>> 0);
      return String(b.readFloatLE(0));
    }
    default:
      return `0x${(value.data >>> 0).toString(16)}`;
  }
}
