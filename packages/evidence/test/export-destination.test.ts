// A bundle is written to a staging file and renamed over its destination, and a rename replaces
// whatever holds the name: a FIFO, a socket or (as root) a device node such as /dev/null would have
// become a plain file. Such destinations are refused before anything is written; a symbolic link is
// written through, and stays a link.
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { lstatSync, readFileSync, readdirSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { exportBundle, replaceableDestination } from '@rea/evidence';
import type { EvidenceRecord } from '@rea/evidence';
import { withTempDir } from '@rea/test-helpers';
import { functionRecord, rejected } from './records.js';

const records = (): EvidenceRecord[] => ['0x401000', '0x401100'].map((a, i) => functionRecord(a, 5 + i));

describe('the destination of an exported bundle', () => {
  it('refuses a FIFO and leaves it a FIFO, with nothing written beside it', () =>
    withTempDir(async (dir) => {
      const fifo = join(dir, 'pipe');
      execFileSync('mkfifo', [fifo]);
      const error = await rejected(exportBundle(records(), fifo));
      expect(error.code).toBe('invalid_request');
      expect(error.message).toBe(
        `The bundle destination ${fifo} is not a regular file (a device, FIFO or socket): writing the output would replace it.`,
      );
      expect(error.details).toEqual({ reason: 'destination-not-a-file', path: fifo, format: 'special' });
      expect(error.remediation).toContain('Name a regular file to write');
      expect(lstatSync(fifo).isFIFO()).toBe(true);
      expect(readdirSync(dir)).toEqual(['pipe']);
    }));

  it('refuses a socket, and a link that leads to one', () =>
    withTempDir(async (dir) => {
      const socket = join(dir, 'sock');
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(socket, resolve));
      try {
        symlinkSync(socket, join(dir, 'to-sock'));
        for (const destination of [socket, join(dir, 'to-sock')]) {
          const error = await rejected(exportBundle(records(), destination));
          expect(error.details['reason']).toBe('destination-not-a-file');
          expect(error.details['path']).toBe(destination);
        }
        expect(lstatSync(socket).isSocket()).toBe(true);
        expect(lstatSync(join(dir, 'to-sock')).isSymbolicLink()).toBe(true);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    }));

  it('refuses a character device without touching it', async () => {
    // /dev/null is a character device on every Linux and macOS machine; as root a rename would replace it.
    const error = await rejected(exportBundle(records(), '/dev/null'));
    expect(error.code).toBe('invalid_request');
    expect(error.details['reason']).toBe('destination-not-a-file');
    expect(lstatSync('/dev/null').isCharacterDevice()).toBe(true);
  });

  it('writes through a link to an earlier bundle, and the link stays a link', () =>
    withTempDir(async (dir) => {
      writeFileSync(join(dir, 'old.json'), 'an earlier bundle');
      symlinkSync('old.json', join(dir, 'latest.json'));
      const result = await exportBundle(records(), join(dir, 'latest.json'));
      expect(result.path).toBe(join(dir, 'old.json'));
      expect(readlinkSync(join(dir, 'latest.json'))).toBe('old.json');
      expect(JSON.parse(readFileSync(join(dir, 'latest.json'), 'utf8')).records).toHaveLength(2);
      expect(readdirSync(dir).sort()).toEqual(['latest.json', 'old.json']);
    }));

  it('makes the file a dangling link names, and refuses a link that leads to another dangling link', () =>
    withTempDir(async (dir) => {
      symlinkSync('new.json', join(dir, 'pending.json'));
      const result = await exportBundle(records(), join(dir, 'pending.json'));
      expect(result.path).toBe(join(dir, 'new.json'));
      expect(lstatSync(join(dir, 'pending.json')).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, 'new.json'), 'utf8')).records).toHaveLength(2);

      // As /dev/stdout on a pipe: a link to /proc/self/fd/1, itself a link to no file.
      symlinkSync('nowhere', join(dir, 'hop'));
      symlinkSync('hop', join(dir, 'first'));
      const error = await rejected(exportBundle(records(), join(dir, 'first')));
      expect(error.code).toBe('invalid_request');
      expect(error.details).toEqual({
        reason: 'destination-unresolved',
        path: join(dir, 'first'),
        target: join(dir, 'hop'),
      });
    }));

  it('names a folder with a file to write in it', () =>
    withTempDir(async (dir) => {
      expect(() => replaceableDestination(dir, 'The diff image destination', 'diff.png')).toThrow(
        expect.objectContaining({
          code: 'invalid_request',
          message: `The diff image destination ${dir} is a directory.`,
          remediation: `Name the file to write, e.g. ${join(dir, 'diff.png')}.`,
        }),
      );
    }));
});
