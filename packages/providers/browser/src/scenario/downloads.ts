import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { CdpConnection, CdpParams } from '../engine/cdp.js';
import type { EventLog } from './events.js';
import type { ScenarioCapture } from './schema.js';

type Download = ScenarioCapture['downloads'][number];

/**
 * The downloads of a scenario in a browser REA owns. The browser writes into `staging` (a directory
 * of the call's supervisor, removed with the call); each completed download within the byte budget
 * (for all of them together) is hashed and moved, complete, into a fresh `rea-browser-downloads-…`
 * directory, named by its SHA-256. A download that would pass the budget is cancelled; one not
 * finished when the scenario ends is cancelled: the kept directory never holds a partial file.
 */
export class Downloads {
  readonly list: Download[] = [];
  private readonly pending = new Map<string, Download>();
  private dir: string | null = null;
  private remaining: number;
  private ended = false;

  constructor(
    private readonly browser: CdpConnection,
    private readonly log: EventLog,
    private readonly staging: string,
    readonly budget: number,
  ) {
    this.remaining = budget;
  }

  /** The directory of kept downloads, or null when none was kept. */
  get directory(): string | null {
    return this.dir;
  }

  private settled = 0;
  private readonly waiting: Array<{ action: number | null; resolve: () => void }> = [];

  /** Resolves once a download caused by `action` (null: the page's own load) is listed. */
  whenBegun(action: number | null): Promise<void> {
    if (this.list.some((d) => d.action === action)) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push({ action, resolve }));
  }

  /**
   * True once a download has begun since the last time this answered true, and none is in progress
   * (what `wait_for_downloads` waits for).
   */
  settle(): boolean {
    if (this.list.length === this.settled || this.pending.size > 0) return false;
    this.settled = this.list.length;
    return true;
  }

  /** Lets the browser download into the owned directory (or refuses downloads with a zero budget). */
  async start(): Promise<void> {
    this.browser.on('Browser.downloadWillBegin', (p) => this.begin(p));
    this.browser.on('Browser.downloadProgress', (p) => this.progress(p));
    if (this.budget === 0) {
      await this.browser.send('Browser.setDownloadBehavior', { behavior: 'deny', eventsEnabled: true });
      return;
    }
    await this.browser.send('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      downloadPath: this.staging,
      eventsEnabled: true,
    });
  }

  private begin(p: CdpParams): void {
    if (this.ended) return;
    const url = String(p['url'] ?? '');
    const download: Download = {
      // The action whose request the download answers (a click's link is answered during a later action),
      // else the action running now (a download the page makes of its own data has no request).
      action: this.log.requestedBy(url) ?? this.log.action,
      url,
      suggested_filename: String(p['suggestedFilename'] ?? '').slice(0, 256),
      outcome: this.budget === 0 ? 'refused' : 'incomplete',
      path: null,
      sha256: null,
      size: null,
    };
    this.list.push(download);
    this.log.add('download', `begin: ${download.suggested_filename}`, download.url);
    if (this.budget > 0) this.pending.set(String(p['guid']), download);
    else this.log.add('download', `refused: ${download.suggested_filename} (max_download_bytes is 0)`, url);
    for (const waiter of this.waiting.filter((w) => w.action === download.action)) {
      this.waiting.splice(this.waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  private progress(p: CdpParams): void {
    const guid = String(p['guid']);
    const download = this.pending.get(guid);
    if (download === undefined || this.ended) return;
    const state = String(p['state']);
    const known = Math.max(Number(p['totalBytes'] ?? 0), Number(p['receivedBytes'] ?? 0));
    if (state === 'inProgress' && known > this.remaining) return this.drop(guid, download, 'over-budget', known);
    if (state === 'canceled') return this.drop(guid, download, 'canceled');
    if (state !== 'completed') return;
    const file = join(this.staging, guid);
    const size = existsSync(file) ? statSync(file).size : 0;
    if (size > this.remaining) return this.drop(guid, download, 'over-budget', size);
    const sha256 = createHash('sha256').update(readFileSync(file)).digest('hex');
    const ext = extname(download.suggested_filename)
      .replace(/[^.\w-]/g, '')
      .slice(0, 16);
    this.dir ??= mkdtempSync(join(tmpdir(), 'rea-browser-downloads-'));
    const path = join(this.dir, `${sha256}${ext}`);
    renameSync(file, path);
    this.remaining -= size;
    this.pending.delete(guid);
    Object.assign(download, { outcome: 'kept', path, sha256, size });
    this.log.add('download', `kept: ${download.suggested_filename} (${size} bytes)`, download.url);
  }

  /** Cancels a download; `bytes` (over-budget) is the size known when it was found to pass the budget. */
  private drop(guid: string, download: Download, outcome: Download['outcome'], bytes?: number): void {
    this.pending.delete(guid);
    download.outcome = outcome;
    void this.browser.send('Browser.cancelDownload', { guid }).catch(() => undefined);
    rmSync(join(this.staging, guid), { force: true });
    const why =
      bytes === undefined
        ? ''
        : ` (${bytes} bytes, past the ${this.remaining} bytes left of ${this.budget}: cancelled)`;
    this.log.add('download', `${outcome}: ${download.suggested_filename}${why}`, download.url);
  }

  /**
   * Ends downloading: unfinished downloads are cancelled (their bytes stay in the staging directory,
   * removed with the call) and reported `incomplete`; later downloads of the browser are refused.
   */
  async end(): Promise<void> {
    this.ended = true;
    const unfinished = [...this.pending.keys()];
    this.pending.clear();
    await Promise.all([
      ...unfinished.map((guid) => this.browser.send('Browser.cancelDownload', { guid }).catch(() => undefined)),
      this.browser.send('Browser.setDownloadBehavior', { behavior: 'deny' }).catch(() => undefined),
    ]);
  }
}
