// Shared helpers for the headless-browser tests of the report and the dashboard
// (web/tests/*.test.mjs) and the report's render-time benchmark: launching Chromium through
// playwright-core, reading the common command-line arguments, collecting console errors and
// failing with one line.
import { chromium } from 'playwright-core';

// Headless Chromium: HETSCHED_CHROMIUM names the executable, Debian's /usr/bin/chromium otherwise.
export async function launchBrowser(options = {}) {
  return chromium.launch({
    executablePath: process.env.HETSCHED_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox'],
    ...options,
  });
}

// `--hetsched PATH --artifacts DIR` (either may be absent: then null).
export function parseArgs(argv) {
  const args = { hetsched: null, artifacts: null };
  for (let i = 2; i < argv.length; i++) {
    const name = argv[i];
    if ((name === '--hetsched' || name === '--artifacts') && i + 1 < argv.length) {
      args[name.slice(2)] = argv[++i];
    } else if (name.startsWith('--hetsched=')) {
      args.hetsched = name.slice('--hetsched='.length);
    } else if (name.startsWith('--artifacts=')) {
      args.artifacts = name.slice('--artifacts='.length);
    } else {
      fail(`unknown argument ${JSON.stringify(name)} (expected --hetsched PATH --artifacts DIR)`);
    }
  }
  return args;
}

// Console messages of type error or warning, and uncaught page errors, as strings, in the
// array returned (it keeps filling while the page lives).
export function collectConsoleErrors(page) {
  const errors = [];
  page.on('console', (message) => {
    const type = message.type();
    if (type === 'error' || type === 'warning') errors.push(`console ${type}: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
  return errors;
}

// One line on stderr, exit status 1.
export function fail(message) {
  process.stderr.write(`FAIL: ${String(message).replace(/\s*\n\s*/g, ' | ')}\n`);
  process.exit(1);
}
