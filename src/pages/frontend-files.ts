import { Inject, Injectable } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { pagesConfig } from './pages.config';
import { realpathSync, statSync } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { resolve, sep } from 'node:path';

/**
 * Finds files of the static frontend in `FRONTEND_DIR` (e.g. a static export), by default the
 * built console (`web/dist`), for the page router. Every lookup is confined to the folder:
 * segments starting with a dot (`..`, `.env`, `.vite`) are refused, and the resolved real path
 * (symbolic links followed) must stay inside it. Without a folder every lookup answers null and
 * `enabled` is false.
 */
@Injectable()
export class FrontendFiles {
  /** Real path of FRONTEND_DIR, or undefined when none is configured. */
  private readonly root?: string;

  /** Throws at boot when FRONTEND_DIR is set but is not a readable folder. */
  constructor(@Inject(pagesConfig.KEY) pages: ConfigType<typeof pagesConfig>) {
    const dir = pages.frontendDir;
    if (!dir) return;
    let isDir = false;
    try {
      isDir = statSync(dir).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDir) throw new Error(`FRONTEND_DIR ${dir} is not a folder`);
    this.root = realpathSync(dir);
  }

  get enabled(): boolean {
    return this.root !== undefined;
  }

  /**
   * The file for page `segments` (decoded, e.g. `['en', 'dashboard']`): the path itself when it
   * is a file, else `<path>.html`, else `<path>/index.html`, else the folder's `index.html` (the
   * shell of a single-page app); null when none exists.
   */
  async pageFile(segments: string[]): Promise<string | null> {
    const last = segments.length - 1;
    const candidates = [
      segments,
      last >= 0 ? [...segments.slice(0, last), `${segments[last]}.html`] : null,
      [...segments, 'index.html'],
      ['index.html'],
    ];
    for (const candidate of candidates) {
      const file = candidate && (await this.file(candidate));
      if (file) return file;
    }
    return null;
  }

  /** The asset at `segments` (`['_next', 'static', 'app.js']`, `['favicon.ico']`), or null. */
  assetFile(segments: string[]): Promise<string | null> {
    return this.file(segments);
  }

  /** The real path of a regular file at `segments` inside the folder, or null. */
  private async file(segments: string[]): Promise<string | null> {
    const root = this.root;
    if (!root || segments.length === 0) return null;
    if (segments.some((s) => s.startsWith('.') || s.includes('/') || s.includes('\\'))) {
      return null;
    }
    const inside = (p: string) => p.startsWith(root + sep);
    const candidate = resolve(root, ...segments);
    if (!inside(candidate)) return null;
    try {
      const real = await realpath(candidate);
      return inside(real) && (await stat(real)).isFile() ? real : null;
    } catch {
      return null;
    }
  }
}
