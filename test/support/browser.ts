// A real Chromium for end-to-end tests (Debian's package, driven by playwright-core): skipped with a reason when it is not
// installed, failing instead when CADRE_REQUIRE_BROWSER=1 (set by .ci/run, which installs it).
import { access, constants } from 'node:fs/promises';
import type { Browser } from 'playwright-core';

export const chromiumPath = process.env.CADRE_TEST_CHROMIUM ?? '/usr/bin/chromium';
export const browserRequired = process.env.CADRE_REQUIRE_BROWSER === '1';

/** Why no browser test can run here, or '' when Chromium is installed. */
export async function browserMissing(): Promise<string> {
  const found = await access(chromiumPath, constants.X_OK).then(() => true, () => false);
  if (found) return '';
  const reason = `Chromium is not installed at ${chromiumPath} (apt-get install chromium, or set CADRE_TEST_CHROMIUM)`;
  if (browserRequired) throw new Error(`${reason}; CADRE_REQUIRE_BROWSER=1 forbids skipping`);
  return reason;
}

/** Headless Chromium with the flags that keep it off the network (no background services, updates or sync). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
