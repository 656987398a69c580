/**
 * Headless Chromium for the portal's browser tests: Debian's `chromium` driven by playwright-core
 * (no browser download). Missing, the tests skip with a reason — except under CI=true, where they fail.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const chromiumMissing = !fs.existsSync(CHROMIUM);
/** Under CI a missing browser must fail, not skip. */
export const skipBrowser = chromiumMissing && process.env.CI !== 'true';
if (skipBrowser)
  console.warn(`skipping the portal browser tests: ${CHROMIUM} is missing (apt-get install chromium)`);

export const SCREENSHOTS = path.resolve(import.meta.dirname, '../.tmp/portal-screenshots');

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** A fresh browser profile (its own cookies): one per tenant. */
export async function launch(viewport = { width: 1100, height: 800 }): Promise<Browser> {
  if (chromiumMissing) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Saves the page's screenshot as `<name>.png` and checks the file is a non-empty PNG. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  const bytes = fs.readFileSync(file);
  expect(bytes.byteLength).toBeGreaterThan(1000);
  expect(bytes.subarray(0, 8).equals(PNG)).toBe(true);
  return file;
}

/**
 * The accessibility floor every page must meet: a language, a viewport for phones, a title, one h1,
 * a main landmark, a name for every form control (a `<label for>`, a wrapping label or aria-label),
 * and no horizontal scrolling of the page itself at the current width.
 */
export async function checkAccessible(page: Page): Promise<void> {
  const report = await page.evaluate(() => {
    const controls = Array.from(document.querySelectorAll('input, select, textarea, button')).filter(
      (el) => (el as HTMLInputElement).type !== 'hidden',
    );
    const unnamed = controls
      .filter((el) => {
        if (el.tagName === 'BUTTON')
          return (el.textContent ?? '').trim() === '' && !el.getAttribute('aria-label');
        const id = el.getAttribute('id');
        const labelled = id !== null && document.querySelector(`label[for="${CSS.escape(id)}"]`) !== null;
        return !labelled && el.closest('label') === null && !el.getAttribute('aria-label');
      })
      .map((el) => el.outerHTML.slice(0, 120));
    return {
      lang: document.documentElement.lang,
      viewport: document.querySelector('meta[name="viewport"]')?.getAttribute('content') ?? null,
      title: document.title,
      h1: document.querySelectorAll('h1').length,
      main: document.querySelectorAll('main').length,
      unnamed,
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  });
  expect(report.lang).toBe('en');
  expect(report.viewport).toContain('width=device-width');
  expect(report.title).not.toBe('');
  expect(report.h1).toBe(1);
  expect(report.main).toBe(1);
  expect(report.unnamed).toEqual([]);
  expect(report.overflow).toBeLessThanOrEqual(0);
}
