// Render time of hetsched HTML reports: `node web/tests/render_time.mjs FILE.html [more.html]`
// prints one JSON line per file, {"file", "render_seconds", "complete_seconds", "bytes"}: medians
// over 3 loads (each in a fresh page) of the time from navigation start until the charts of the
// first screen are drawn (the page's window.hetschedFirstRenderSeconds) and until every chart is
// (window.hetschedRenderSeconds). `hetsched bench report` runs it.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, fail } from './browser.mjs';

const LOADS = 3;
const files = process.argv.slice(2);
if (!files.length) fail('usage: node render_time.mjs FILE.html [more.html ...]');
for (const file of files) if (!fs.existsSync(file)) fail(`${file}: no such file`);

const browser = await launchBrowser();
try {
  for (const file of files) {
    const url = pathToFileURL(path.resolve(file)).href;
    const times = [], complete = [];
    for (let i = 0; i < LOADS; i++) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
      await page.goto(url, { waitUntil: 'load', timeout: 120000 });
      await page.waitForFunction(() => document.documentElement.dataset.rendered === '1'
        || document.documentElement.dataset.renderError !== undefined, null, { timeout: 120000 });
      const result = await page.evaluate(() => ({
        seconds: window.hetschedFirstRenderSeconds, complete: window.hetschedRenderSeconds,
        error: document.documentElement.dataset.renderError }));
      await page.close();
      if (result.error !== undefined) fail(`${file}: the report shows an error: ${result.error}`);
      if (typeof result.seconds !== 'number') fail(`${file}: the page set no render time`);
      times.push(result.seconds);
      complete.push(result.complete);
    }
    const median = (values) => Number(values.sort((a, b) => a - b)[LOADS >> 1].toFixed(4));
    const line = { file, render_seconds: median(times), complete_seconds: median(complete), bytes: fs.statSync(file).size };
    process.stdout.write(`${JSON.stringify(line)}\n`);
  }
} catch (error) {
  await browser.close();
  fail(error && error.message ? error.message : error);
}
await browser.close();
