// The Dalvik instruction set: mnemonic, format (which fixes the length and the operand layout) and
// what the index operand refers to, by opcode.

/** What an instruction's index operand names. */
export type IndexKind = 'string' | 'type' | 'field' | 'method' | 'call_site' | 'method_handle' | 'proto' | null;

/** One opcode. */
export interface Opcode {
  name: string;
  format: string;
  index: IndexKind;
}

/** Length in 16-bit code units of each instruction format. */
export const FORMAT_UNITS: Readonly<Record<string, number>> = Object.freeze({
  '10x': 1,
  '12x': 1,
  '11n': 1,
  '11x': 1,
  '10t': 1,
  '20t': 2,
  '22x': 2,
  '21t': 2,
  '21s': 2,
  '21h': 2,
  '21c': 2,
  '23x': 2,
  '22b': 2,
  '22t': 2,
  '22s': 2,
  '22c': 2,
  '30t': 3,
  '32x': 3,
  '31i': 3,
  '31t': 3,
  '31c': 3,
  '35c': 3,
  '3rc': 3,
  '45cc': 4,
  '4rcc': 4,
  '51l': 5,
});

const table: (Opcode | null)[] = new Array<Opcode | null>(256).fill(null);

function put(code: number, name: string, format: string, index: IndexKind = null): void {
  table[code] = { name, format, index };
}

function run(start: number, names: string[], format: string, index: IndexKind = null): void {
  names.forEach((name, i) => put(start + i, name, format, index));
}

put(0x00, 'nop', '10x');
put(0x01, 'move', '12x');
put(0x02, 'move/from16', '22x');
put(0x03, 'move/16', '32x');
put(0x04, 'move-wide', '12x');
put(0x05, 'move-wide/from16', '22x');
put(0x06, 'move-wide/16', '32x');
put(0x07, 'move-object', '12x');
put(0x08, 'move-object/from16', '22x');
put(0x09, 'move-object/16', '32x');
run(0x0a, ['move-result', 'move-result-wide', 'move-result-object', 'move-exception'], '11x');
put(0x0e, 'return-void', '10x');
run(0x0f, ['return', 'return-wide', 'return-object'], '11x');
put(0x12, 'const/4', '11n');
put(0x13, 'const/16', '21s');
put(0x14, 'const', '31i');
put(0x15, 'const/high16', '21h');
put(0x16, 'const-wide/16', '21s');
put(0x17, 'const-wide/32', '31i');
put(0x18, 'const-wide', '51l');
put(0x19, 'const-wide/high16', '21h');
put(0x1a, 'const-string', '21c', 'string');
put(0x1b, 'const-string/jumbo', '31c', 'string');
put(0x1c, 'const-class', '21c', 'type');
run(0x1d, ['monitor-enter', 'monitor-exit'], '11x');
put(0x1f, 'check-cast', '21c', 'type');
put(0x20, 'instance-of', '22c', 'type');
put(0x21, 'array-length', '12x');
put(0x22, 'new-instance', '21c', 'type');
put(0x23, 'new-array', '22c', 'type');
put(0x24, 'filled-new-array', '35c', 'type');
put(0x25, 'filled-new-array/range', '3rc', 'type');
put(0x26, 'fill-array-data', '31t');
put(0x27, 'throw', '11x');
put(0x28, 'goto', '10t');
put(0x29, 'goto/16', '20t');
put(0x2a, 'goto/32', '30t');
put(0x2b, 'packed-switch', '31t');
put(0x2c, 'sparse-switch', '31t');
run(0x2d, ['cmpl-float', 'cmpg-float', 'cmpl-double', 'cmpg-double', 'cmp-long'], '23x');
run(0x32, ['if-eq', 'if-ne', 'if-lt', 'if-ge', 'if-gt', 'if-le'], '22t');
run(0x38, ['if-eqz', 'if-nez', 'if-ltz', 'if-gez', 'if-gtz', 'if-lez'], '21t');
const kinds = ['', '-wide', '-object', '-boolean', '-byte', '-char', '-short'];
run(0x44, [...kinds.map((k) => `aget${k}`), ...kinds.map((k) => `aput${k}`)], '23x');
run(0x52, [...kinds.map((k) => `iget${k}`), ...kinds.map((k) => `iput${k}`)], '22c', 'field');
run(0x60, [...kinds.map((k) => `sget${k}`), ...kinds.map((k) => `sput${k}`)], '21c', 'field');
const invokes = ['invoke-virtual', 'invoke-super', 'invoke-direct', 'invoke-static', 'invoke-interface'];
run(0x6e, invokes, '35c', 'method');
run(
  0x74,
  invokes.map((n) => `${n}/range`),
  '3rc',
  'method',
);
run(
  0x7b,
  [
    'neg-int',
    'not-int',
    'neg-long',
    'not-long',
    'neg-float',
    'neg-double',
    'int-to-long',
    'int-to-float',
    'int-to-double',
    'long-to-int',
    'long-to-float',
    'long-to-double',
    'float-to-int',
    'float-to-long',
    'float-to-double',
    'double-to-int',
    'double-to-long',
    'double-to-float',
    'int-to-byte',
    'int-to-char',
    'int-to-short',
  ],
  '12x',
);
const ints = ['add', 'sub', 'mul', 'div', 'rem', 'and', 'or', 'xor', 'shl', 'shr', 'ushr'];
const floats = ['add', 'sub', 'mul', 'div', 'rem'];
const binops = [
  ...ints.map((o) => `${o}-int`),
  ...ints.map((o) => `${o}-long`),
  ...floats.map((o) => `${o}-float`),
  ...floats.map((o) => `${o}-double`),
];
run(0x90, binops, '23x');
run(
  0xb0,
  binops.map((o) => `${o}/2addr`),
  '12x',
);
run(
  0xd0,
  [
    'add-int/lit16',
    'rsub-int',
    'mul-int/lit16',
    'div-int/lit16',
    'rem-int/lit16',
    'and-int/lit16',
    'or-int/lit16',
    'xor-int/lit16',
  ],
  '22s',
);
run(
  0xd8,
  [
    'add-int/lit8',
    'rsub-int/lit8',
    'mul-int/lit8',
    'div-int/lit8',
    'rem-int/lit8',
    'and-int/lit8',
    'or-int/lit8',
    'xor-int/lit8',
    'shl-int/lit8',
    'shr-int/lit8',
    'ushr-int/lit8',
  ],
  '22b',
);
put(0xfa, 'invoke-polymorphic', '45cc', 'method');
put(0xfb, 'invoke-polymorphic/range', '4rcc', 'method');
put(0xfc, 'invoke-custom', '35c', 'call_site');
put(0xfd, 'invoke-custom/range', '3rc', 'call_site');
put(0xfe, 'const-method-handle', '21c', 'method_handle');
put(0xff, 'const-method-type', '21c', 'proto');

/** The opcode table; `null` for unused opcodes. */
export const OPCODES: readonly (Opcode | null)[] = Object.freeze(table);
