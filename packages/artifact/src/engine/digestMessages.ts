// Messages between an inventory and its digest workers.

/** One small entry to read, inflate and hash. */
export interface DigestTask {
  /** Position of the entry in the central directory walk. */
  index: number;
  /** Offset of its local header. */
  offset: number;
  nameLength: number;
  compressedSize: number;
  uncompressedSize: number;
  /** 0 (stored) or 8 (deflated). */
  method: number;
  /** Keep the bytes when the entry is at most this large (0: never). */
  collectUpTo: number;
  /** Keep them whatever they are (a link target), not only when they look like a container. */
  collectAny: boolean;
}

/** Consecutive tasks, handed to one worker as one transferred array of numbers ({@link packTasks}). */
export interface DigestBatch {
  batch: number;
  tasks: Float64Array;
}

const TASK_FIELDS = 8;

/** Tasks as numbers, {@link TASK_FIELDS} each, in a buffer of their own (sent without cloning objects). */
export function packTasks(tasks: readonly DigestTask[]): Float64Array {
  const packed = new Float64Array(tasks.length * TASK_FIELDS);
  tasks.forEach((task, i) => {
    const at = i * TASK_FIELDS;
    packed[at] = task.index;
    packed[at + 1] = task.offset;
    packed[at + 2] = task.nameLength;
    packed[at + 3] = task.compressedSize;
    packed[at + 4] = task.uncompressedSize;
    packed[at + 5] = task.method;
    packed[at + 6] = task.collectUpTo;
    packed[at + 7] = task.collectAny ? 1 : 0;
  });
  return packed;
}

/** The tasks {@link packTasks} packed. */
export function unpackTasks(packed: Float64Array): DigestTask[] {
  const tasks: DigestTask[] = [];
  for (let at = 0; at + TASK_FIELDS <= packed.length; at += TASK_FIELDS) {
    tasks.push({
      index: packed[at]!,
      offset: packed[at + 1]!,
      nameLength: packed[at + 2]!,
      compressedSize: packed[at + 3]!,
      uncompressedSize: packed[at + 4]!,
      method: packed[at + 5]!,
      collectUpTo: packed[at + 6]!,
      collectAny: packed[at + 7] === 1,
    });
  }
  return tasks;
}

/** What hashing one entry observed; its size is the declared one (anything else is not handled). */
export interface DigestResult {
  index: number;
  sha256: string;
  crc32: number;
  head: Uint8Array;
  collected: Uint8Array | null;
}

/**
 * Bytes of one entry's record in a batch's results, in task order: handled (1) or left to the
 * owner (0), the length of its head, its CRC-32 (little-endian), its SHA-256 and its first bytes.
 */
export const RECORD_BYTES = 56;
export const RECORD_HANDLED = 0;
export const RECORD_HEAD_LENGTH = 1;
export const RECORD_CRC32 = 4;
export const RECORD_SHA256 = 8;
export const RECORD_HEAD = 40;

/**
 * A batch's results: one transferred buffer of records (nothing per entry is cloned), and the bytes
 * kept of the few entries asked to keep them (containers, link targets), by walk position.
 */
export interface DigestReply {
  batch: number;
  records: ArrayBuffer;
  collected: Array<[number, Uint8Array]>;
}
