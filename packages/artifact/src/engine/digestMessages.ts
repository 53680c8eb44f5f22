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

/** Consecutive tasks, handed to one worker; or (`whole`) the SHA-256 of the whole file. */
export type DigestBatch = { batch: number; tasks: DigestTask[] } | { whole: true };

/** What hashing one entry observed; its size is the declared one (anything else is not handled). */
export interface DigestResult {
  index: number;
  sha256: string;
  crc32: number;
  head: Uint8Array;
  collected: Uint8Array | null;
}

/** A batch's results (an entry the worker did not handle carries its index alone), or the whole file's hash. */
export type DigestReply = { batch: number; results: Array<DigestResult | { index: number }> } | { whole: string };
