// The innermost module holding an offset, asked once per fact, edge and export of a file: with
// thousands of modules a scan per question is quadratic, so the spans are cut once into the segments
// between consecutive bounds, each knowing its innermost holder, and a question is a binary search.

/** A span of a file: from `start` (inclusive) to `end` (exclusive). */
interface Span {
  start: number;
  end: number;
}

/** Min-heap of the spans open at the sweep's position, smallest first, then first listed. */
class OpenSpans<T extends Span> {
  private readonly items: { span: number; index: number; module: T }[] = [];

  private less(a: number, b: number): boolean {
    const x = this.items[a]!;
    const y = this.items[b]!;
    return x.span < y.span || (x.span === y.span && x.index < y.index);
  }

  private swap(a: number, b: number): void {
    const t = this.items[a]!;
    this.items[a] = this.items[b]!;
    this.items[b] = t;
  }

  push(module: T, index: number): void {
    this.items.push({ span: module.end - module.start, index, module });
    for (let i = this.items.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.less(i, parent)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** The smallest span still open at `offset` (spans that ended are dropped on the way), or null. */
  top(offset: number): T | null {
    while (this.items.length > 0 && this.items[0]!.module.end <= offset) {
      const last = this.items.pop()!;
      if (this.items.length === 0) break;
      this.items[0] = last;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.items.length && this.less(l, m)) m = l;
        if (r < this.items.length && this.less(r, m)) m = r;
        if (m === i) break;
        this.swap(i, m);
        i = m;
      }
    }
    return this.items[0]?.module ?? null;
  }
}

/**
 * Indexes `modules` once and returns the question: the innermost module holding `offset` (the one of
 * smallest span; of equal spans, the first listed), or null. Spans may nest or overlap.
 */
export function holderIndex<T extends Span>(modules: readonly T[]): (offset: number) => T | null {
  if (modules.length === 0) return () => null;
  const bounds = [...new Set(modules.flatMap((m) => [m.start, m.end]))].sort((a, b) => a - b);
  const order = modules.map((_, i) => i).sort((a, b) => modules[a]!.start - modules[b]!.start);
  const open = new OpenSpans<T>();
  // holders[i]: the innermost module over [bounds[i], bounds[i + 1]).
  const holders: (T | null)[] = [];
  let next = 0;
  for (const bound of bounds) {
    while (next < order.length && modules[order[next]!]!.start <= bound) {
      const index = order[next]!;
      if (modules[index]!.end > modules[index]!.start) open.push(modules[index]!, index);
      next += 1;
    }
    holders.push(open.top(bound));
  }
  return (offset) => {
    let low = 0;
    let high = bounds.length - 1;
    if (offset < bounds[0]!) return null;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (bounds[mid]! <= offset) low = mid;
      else high = mid - 1;
    }
    return holders[low]!;
  };
}
