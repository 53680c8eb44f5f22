const FLAGS: readonly [number, string][] = [
  [0x1, 'public'],
  [0x2, 'private'],
  [0x4, 'protected'],
  [0x8, 'static'],
  [0x10, 'final'],
  [0x20, 'synchronized'],
  [0x40, 'volatile|bridge'],
  [0x80, 'transient|varargs'],
  [0x100, 'native'],
  [0x200, 'interface'],
  [0x400, 'abstract'],
  [0x800, 'strict'],
  [0x1000, 'synthetic'],
  [0x2000, 'annotation'],
  [0x4000, 'enum'],
  [0x10000, 'constructor'],
  [0x20000, 'declared-synchronized'],
];

/** Names of DEX access flags; `kind` picks the meaning of the two shared bits (0x40, 0x80). */
export function accessNames(flags: number, kind: 'class' | 'field' | 'method'): string[] {
  const out: string[] = [];
  for (const [bit, name] of FLAGS) {
    if ((flags & bit) === 0) continue;
    if (name.includes('|')) {
      const [forField, forMethod] = name.split('|') as [string, string];
      out.push(kind === 'method' ? forMethod : forField);
    } else if (!(kind !== 'method' && bit === 0x20)) {
      out.push(name);
    }
  }
  return out;
}
