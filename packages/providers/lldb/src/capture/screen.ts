/**
 * A small terminal screen model: enough of a VT100/xterm subset to show what a full-screen or
 * line-editing program left on the screen. Understood: printable text with autowrap and scrolling,
 * CR, LF, BS, TAB, BEL; CSI cursor movement (A B C D E F G H d f), erase in display and line (J K),
 * insert/delete lines (L M), scroll region reset; ESC c (reset), ESC 7/8 (save/restore cursor).
 * Everything else — colours and attributes (SGR), modes, OSC titles, charset selection — is consumed
 * and ignored.
 */
/** The body of a CSI sequence after ESC [: private marker, parameters, intermediates, final byte. */
const CSI = /^([?>=!]?)([0-9;]*)([ -/]*)([@-~])/;

export class Screen {
  private cells: string[][];
  private row = 0;
  private col = 0;
  private saved = { row: 0, col: 0 };
  private pending = '';

  constructor(
    private columns: number,
    private rows: number,
  ) {
    this.cells = Screen.blank(columns, rows);
  }

  private static blank(columns: number, rows: number): string[][] {
    return Array.from({ length: rows }, () => Array<string>(columns).fill(' '));
  }

  /** Changes the size, keeping what fits. */
  resize(columns: number, rows: number): void {
    const next = Screen.blank(columns, rows);
    for (let r = 0; r < Math.min(rows, this.rows); r++) {
      for (let c = 0; c < Math.min(columns, this.columns); c++) next[r]![c] = this.cells[r]![c]!;
    }
    this.cells = next;
    this.columns = columns;
    this.rows = rows;
    this.row = Math.min(this.row, rows - 1);
    this.col = Math.min(this.col, columns - 1);
  }

  /** Feeds terminal output. Escape sequences split across calls are completed by the next call. */
  write(text: string): void {
    const input = this.pending + text;
    this.pending = '';
    let i = 0;
    while (i < input.length) {
      const ch = input[i]!;
      if (ch === '\x1b') {
        const used = this.escape(input, i);
        if (used === 0) {
          this.pending = input.slice(i);
          return;
        }
        i += used;
        continue;
      }
      this.control(ch);
      i += 1;
    }
  }

  private control(ch: string): void {
    if (ch === '\r') this.col = 0;
    else if (ch === '\n' || ch === '\v' || ch === '\f') this.lineFeed();
    else if (ch === '\b') this.col = Math.max(0, this.col - 1);
    else if (ch === '\t') this.col = Math.min(this.columns - 1, (Math.floor(this.col / 8) + 1) * 8);
    else if (ch < ' ' || ch === '\x7f') return;
    else this.put(ch);
  }

  private put(ch: string): void {
    if (this.col >= this.columns) {
      this.col = 0;
      this.lineFeed();
    }
    this.cells[this.row]![this.col] = ch;
    this.col += 1;
  }

  private lineFeed(): void {
    if (this.row === this.rows - 1) {
      this.cells.shift();
      this.cells.push(Array<string>(this.columns).fill(' '));
    } else {
      this.row += 1;
    }
  }

  /** Handles the sequence at `at`; returns its length, or 0 when it is incomplete. */
  private escape(input: string, at: number): number {
    const next = input[at + 1];
    if (next === undefined) return 0;
    if (next === '[') {
      const match = CSI.exec(input.slice(at + 2, at + 64));
      if (!match) return input.length - at < 64 ? 0 : 2;
      if (match[1] === '' && match[3] === '')
        this.csi(
          match[4]!,
          match[2]!.split(';').map((p) => (p === '' ? NaN : Number(p))),
        );
      return match[0].length + 2;
    }
    if (next === ']' || next === 'P' || next === '_' || next === '^') {
      // String sequences end with BEL or ST (ESC \).
      const rest = input.slice(at + 2);
      const bel = rest.indexOf('\x07');
      const st = rest.indexOf('\x1b\\');
      const end = [bel >= 0 ? bel + 1 : -1, st >= 0 ? st + 2 : -1].filter((n) => n > 0);
      return end.length === 0 ? 0 : 2 + Math.min(...end);
    }
    if (next === '(' || next === ')' || next === '#') return input[at + 2] === undefined ? 0 : 3;
    if (next === 'c') {
      this.cells = Screen.blank(this.columns, this.rows);
      [this.row, this.col] = [0, 0];
    }
    if (next === '7') this.saved = { row: this.row, col: this.col };
    if (next === '8') [this.row, this.col] = [this.saved.row, this.saved.col];
    if (next === 'D') this.lineFeed();
    if (next === 'M') this.row = Math.max(0, this.row - 1);
    if (next === 'E') {
      this.col = 0;
      this.lineFeed();
    }
    return 2;
  }

  private csi(final: string, params: number[]): void {
    const n = (index: number, fallback = 1) => {
      const value = params[index];
      return value === undefined || Number.isNaN(value) || value === 0 ? fallback : value;
    };
    const clampRow = (r: number) => Math.max(0, Math.min(this.rows - 1, r));
    const clampCol = (c: number) => Math.max(0, Math.min(this.columns - 1, c));
    switch (final) {
      case 'A':
        this.row = clampRow(this.row - n(0));
        break;
      case 'B':
        this.row = clampRow(this.row + n(0));
        break;
      case 'C':
        this.col = clampCol(this.col + n(0));
        break;
      case 'D':
        this.col = clampCol(this.col - n(0));
        break;
      case 'E':
        [this.row, this.col] = [clampRow(this.row + n(0)), 0];
        break;
      case 'F':
        [this.row, this.col] = [clampRow(this.row - n(0)), 0];
        break;
      case 'G':
        this.col = clampCol(n(0) - 1);
        break;
      case 'd':
        this.row = clampRow(n(0) - 1);
        break;
      case 'H':
      case 'f':
        [this.row, this.col] = [clampRow(n(0) - 1), clampCol(n(1) - 1)];
        break;
      case 'J':
        this.eraseDisplay(n(0, 0));
        break;
      case 'K':
        this.eraseLine(n(0, 0));
        break;
      case 'L':
        this.insertLines(n(0), true);
        break;
      case 'M':
        this.insertLines(n(0), false);
        break;
      default:
        break;
    }
  }

  private eraseLine(mode: number, row = this.row): void {
    const line = this.cells[row]!;
    const [from, to] = mode === 0 ? [this.col, this.columns] : mode === 1 ? [0, this.col + 1] : [0, this.columns];
    for (let c = from; c < to; c++) line[c] = ' ';
  }

  private eraseDisplay(mode: number): void {
    if (mode === 2 || mode === 3) {
      this.cells = Screen.blank(this.columns, this.rows);
      return;
    }
    this.eraseLine(mode);
    const rows = mode === 0 ? [this.row + 1, this.rows] : [0, this.row];
    for (let r = rows[0]!; r < rows[1]!; r++) this.cells[r] = Array<string>(this.columns).fill(' ');
  }

  private insertLines(count: number, insert: boolean): void {
    for (let k = 0; k < count; k++) {
      const fresh = Array<string>(this.columns).fill(' ');
      if (insert) {
        this.cells.splice(this.row, 0, fresh);
        this.cells.pop();
      } else {
        this.cells.splice(this.row, 1);
        this.cells.push(fresh);
      }
    }
  }

  /** The screen's lines with trailing spaces removed, and the cursor (0-based). */
  snapshot(): { lines: string[]; cursor: { row: number; column: number } } {
    return {
      lines: this.cells.map((line) => line.join('').trimEnd()),
      cursor: { row: this.row, column: Math.min(this.col, this.columns - 1) },
    };
  }
}
