// The dashboard of `hetsched serve`, end to end in headless Chromium:
//   node web/tests/dashboard.test.mjs --hetsched PATH --artifacts DIR
// Starts the real server (twin engine on a small cluster whose node name holds markup, time
// scale 1, a token file of its own, state in a temporary folder), then checks that the page
// shows nothing before login, refuses a wrong token with a message, shows a job submitted
// over REST appear and finish without a reload (its name, which is markup, shown as text and
// never run), submits and cancels a job from its own form and buttons, shows what runs
// where, forgets everything at logout, and that the API answers 401 without the token.
// Finally SIGTERM must stop the server within seconds although the page's event stream is
// open. Screenshots go to DIR. Exit status 0: passed. Waits are for selectors and text, with
// generous limits (a sanitized Debug build on two busy cores is slow); nothing sleeps.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { collectConsoleErrors, fail, launchBrowser, parseArgs } from './browser.mjs';

const WAIT = 90_000;  // for anything the server or the page does
const XSS_NAME = '<img src=x onerror=window.__xss=1>';
const XSS_TASK = '<svg onload=window.__xss=2>';  // a task name, shown in a chart tooltip
const NODE_NAME = 'gpu-<u>a</u>&amp';  // markup in a node name, shown as text
const BEFORE_LOGIN_NAME = 'submitted-before-login-job';
const DASHBOARD_JOB = 'dashboard-long-job';

const args = parseArgs(process.argv);
if (!args.hetsched) fail('give --hetsched PATH (the hetsched binary)');
const artifacts = path.resolve(args.artifacts || path.join(tmpdir(), 'hetsched-browser-artifacts'));
mkdirSync(artifacts, { recursive: true });

const dir = mkdtempSync(path.join(tmpdir(), 'hetsched-dashboard-'));
const token = randomBytes(24).toString('hex');
writeFileSync(path.join(dir, 'token'), `${token}\n`, { mode: 0o600 });
writeFileSync(path.join(dir, 'cluster.yaml'), [
  'nodes:',
  `  - name: ${JSON.stringify(NODE_NAME)}`,
  '    devices: [{model: H100-SXM, count: 2}]',
  '  - name: cpu-0',
  '    devices: [{model: EPYC-9654, count: 1}]',
  '',
].join('\n'));

// One job of one task: about 3.5 model seconds on an H100 (1e14 flops), at time scale 1
// as many real seconds; a long one runs for about an hour.
function workload(name, flops, task = 'step-1') {
  return `jobs:\n  - name: ${JSON.stringify(name)}\n    tasks:\n` +
    `      - {name: ${JSON.stringify(task)}, kernel: elementwise, flops: ${flops}, bytes: 1.0e13}\n`;
}

let serve = null;
let serveExited = null;
process.on('exit', () => {
  if (serve && serve.exitCode === null && serve.signalCode === null) serve.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function startServe() {
  serve = spawn(args.hetsched, [
    'serve', '--listen', '127.0.0.1:0', '--state', `sqlite:${path.join(dir, 'state', 'state.db')}`,
    '--engine', `sim:${path.join(dir, 'cluster.yaml')}`, '--time-scale', '1',
    '--token-file', path.join(dir, 'token'),
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  serve.stderr.on('data', (chunk) => { stderr += chunk; });
  serveExited = new Promise((resolve) => serve.on('exit', (code, signal) => resolve({ code, signal, stderr: () => stderr })));
  const address = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed no address in ${WAIT / 1000} s; stderr: ${stderr}`)), WAIT);
    serve.stdout.on('data', (chunk) => {
      stdout += chunk;
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    serve.on('exit', (code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
  return address;
}

async function call(base, method, route, { body, bearer = token } = {}) {
  const headers = {};
  if (bearer !== null) headers.Authorization = `Bearer ${bearer}`;
  const response = await fetch(base + route, { method, headers, body });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) };
}

function check(condition, message) {
  if (!condition) fail(message);
}

async function shot(page, name) {
  await page.screenshot({ path: path.join(artifacts, `dashboard-${name}.png`), fullPage: true });
}

async function main() {
  const base = await startServe();

  // ---- The API refuses everything but the page and /healthz without the token.
  for (const [method, route] of [['GET', '/v1/events'], ['GET', '/v1/jobs'], ['GET', '/v1/nodes'], ['GET', '/metrics']]) {
    const none = await call(base, method, route, { bearer: null });
    check(none.status === 401, `${method} ${route} without a token answered ${none.status}, not 401`);
    const wrong = await call(base, method, route, { bearer: 'not-the-token' });
    check(wrong.status === 401, `${method} ${route} with a wrong token answered ${wrong.status}, not 401`);
  }

  // A job that exists before anyone logs in: the page must not show it.
  const early = await call(base, 'POST', '/v1/jobs', { body: workload(BEFORE_LOGIN_NAME, '1.0e13') });
  check(early.status === 201, `submitting over REST answered ${early.status}: ${early.text}`);
  const pageSource = await call(base, 'GET', '/', { bearer: null });
  check(pageSource.status === 200, `GET / answered ${pageSource.status}`);
  check(!pageSource.text.includes(BEFORE_LOGIN_NAME), 'GET / carries job data');
  check(!/<script[^>]+src=|<link[^>]+stylesheet/i.test(pageSource.text), 'the page fetches scripts or styles');

  const browser = await launchBrowser();
  const context = await browser.newContext({ viewport: { width: 1360, height: 1000 } });
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT);
  const errors = collectConsoleErrors(page);
  const requests = [];
  page.on('request', (request) => requests.push(request.url()));

  await page.goto(`${base}/`, { waitUntil: 'load' });
  await page.waitForSelector('#login-form');
  check(await page.isHidden('#main'), 'the dashboard is shown before login');
  check(await page.locator('[data-job-id]').count() === 0, 'job rows exist before login');
  check(!(await page.content()).includes(BEFORE_LOGIN_NAME), 'the page shows a job before login');
  await shot(page, '1-login');

  // ---- A wrong token: 401, a clear message, nothing shown.
  const errorsBeforeWrongLogin = errors.length;
  await page.fill('#token', 'certainly-not-the-token');
  await page.click('#login-button');
  await page.waitForSelector('#login-error:not([hidden])');
  const loginError = await page.textContent('#login-error');
  check(/wrong token/i.test(loginError) && loginError.includes('401'), `the wrong-token message reads: ${loginError}`);
  check(await page.isHidden('#main'), 'the dashboard is shown after a wrong token');
  check(await page.evaluate(() => sessionStorage.getItem('hetsched.token')) === null, 'a wrong token was kept');
  await shot(page, '2-wrong-token');
  // Chromium logs each 401 answer as a failed resource: those are expected here, nothing else.
  const unexpected = errors.slice(errorsBeforeWrongLogin).filter((e) => !/status of 401/.test(e));
  check(unexpected.length === 0, `console errors at the wrong login: ${unexpected.join(' | ')}`);
  errors.length = 0;

  // ---- The right token.
  await page.fill('#token', token);
  await page.click('#login-button');
  await page.waitForSelector('#main:not([hidden])');
  await page.waitForFunction(() => document.getElementById('connection-status').textContent === 'live');
  check(await page.evaluate(() => sessionStorage.getItem('hetsched.token')) !== null, 'the token is not in sessionStorage');
  check(!page.url().includes(token), 'the token is in the URL');
  check(await page.evaluate(() => document.cookie) === '', 'the page set a cookie');
  check(await page.inputValue('#token') === '', 'the token stays in the login field');
  await page.evaluate(() => { window.__sameDocument = true; });
  // The job submitted before login is listed now.
  await page.waitForSelector(`#jobs-table tr[data-job-id="${early.json().ids[0]}"]`);
  // The cluster: the node whose name is markup is shown as text.
  await page.waitForSelector('.node[data-node] .node-name');
  const nodeNames = await page.$$eval('.node .node-name', (els) => els.map((e) => e.textContent));
  check(nodeNames.includes(NODE_NAME), `node names shown: ${JSON.stringify(nodeNames)}`);

  // ---- A job submitted over REST appears, runs and finishes without a reload.
  const submitted = await call(base, 'POST', '/v1/jobs', { body: workload(XSS_NAME, '1.0e14', XSS_TASK) });
  check(submitted.status === 201, `submitting over REST answered ${submitted.status}: ${submitted.text}`);
  const xssId = submitted.json().ids[0];
  const xssRow = `#jobs-table tr[data-job-id="${xssId}"]`;
  await page.waitForSelector(xssRow);
  await page.waitForSelector(`${xssRow}[data-state="completed"]`);
  const shownName = await page.textContent(`${xssRow} .job-name`);
  check(shownName === XSS_NAME, `the job's name is shown as ${JSON.stringify(shownName)}`);
  check(await page.evaluate(() => window.__sameDocument === true), 'the page was reloaded');
  // Its detail: tasks, placement and history, the name again as text.
  await page.click(`${xssRow} button.show-job`);
  await page.waitForSelector('#job-detail:not([hidden]) #detail-facts .fact-name');
  check(await page.textContent('#detail-facts .fact-name') === XSS_NAME, 'the detail does not show the name as text');
  await page.waitForFunction(() => document.querySelector('#detail-tasks tbody tr td:nth-child(3)')?.textContent.includes('H100-SXM#'));
  await page.waitForFunction(() => /finished/.test(document.getElementById('detail-history').textContent));
  await page.waitForSelector('#event-log li');
  check(await page.textContent('#detail-tasks tbody tr td.name') === XSS_TASK, 'the task name is not shown as text');
  // The timeline's tooltip names the task, as text.
  const bar = await page.locator('#detail-chart').boundingBox();
  await page.locator('#detail-chart').hover({ position: { x: bar.width * 0.55, y: 10 + (bar.height - 38) / 2 } });
  await page.waitForFunction((task) => [...document.querySelectorAll('#detail-chart div')]
    .some((d) => d.textContent.includes(task)), XSS_TASK);
  // The metrics chart's tooltip.
  const chart = await page.locator('#metrics-chart').boundingBox();
  await page.locator('#metrics-chart').hover({ position: { x: chart.width * 0.7, y: chart.height / 2 } });
  await page.waitForFunction(() => [...document.querySelectorAll('#metrics-chart div')]
    .some((d) => d.textContent.includes('running jobs:')));
  check(await page.evaluate(() => document.querySelectorAll('img, svg').length) === 0, 'markup from a name made elements');
  check(await page.evaluate(() => window.__xss) === undefined, 'markup from a name ran');
  // The live chart has points.
  const points = await page.evaluate(() => echarts.getInstanceByDom(document.getElementById('metrics-chart')).getOption().series[0].data.length);
  check(points >= 2, `the metrics chart has ${points} points`);
  await shot(page, '3-job-finished');

  // ---- Submit from the dashboard's form, see it run where it was placed, cancel it.
  await page.fill('#workload', workload(DASHBOARD_JOB, '1.0e17'));
  await page.click('#submit-button');
  await page.waitForFunction(() => /Submitted: job \d+/.test(document.getElementById('submit-result').textContent));
  const longId = Number(await page.getAttribute('#submit-result', 'data-ids'));
  const longRow = `#jobs-table tr[data-job-id="${longId}"]`;
  await page.waitForSelector(`${longRow}[data-state="running"]`);
  await page.waitForFunction((name) => [...document.querySelectorAll('.slot.busy')].some((s) => s.title.includes(name)), DASHBOARD_JOB);
  await page.waitForFunction((count) => document.getElementById('count-busy').textContent.startsWith(`${count} /`), 1);
  await shot(page, '4-running');
  await page.click(`${longRow} button.cancel-job`);
  await page.waitForFunction((id) => document.getElementById('action-result').textContent.includes(`Cancelling job ${id}`), longId);
  await page.waitForSelector(`${longRow}[data-state="cancelled"]`);
  await page.waitForFunction(() => document.querySelectorAll('.slot.busy').length === 0);
  const cancelled = await call(base, 'GET', `/v1/jobs/${longId}`);
  check(cancelled.json().state === 'cancelled', `job ${longId} is ${cancelled.json().state} on the server`);
  await shot(page, '5-cancelled');

  // A refused submission shows the server's error as text.
  await page.fill('#workload', 'jobs: [{name: x, tasks: [{name: a, flops: lots}]}]');
  await page.click('#submit-button');
  await page.waitForFunction(() => /Refused: .*flops/.test(document.getElementById('submit-result').textContent));
  check(errors.filter((e) => !/status of 400/.test(e)).length === 0, `console errors: ${errors.join(' | ')}`);
  errors.length = 0;

  // ---- Logout forgets the token and every job shown; login again.
  await page.click('#logout');
  await page.waitForSelector('#login:not([hidden])');
  check(await page.evaluate(() => sessionStorage.getItem('hetsched.token')) === null, 'logout kept the token');
  check(await page.locator('[data-job-id]').count() === 0, 'job rows are left after logout');
  check(!(await page.content()).includes(DASHBOARD_JOB), 'job data is left after logout');
  await page.fill('#token', token);
  await page.click('#login-button');
  await page.waitForSelector(`#jobs-table tr[data-job-id="${longId}"][data-state="cancelled"]`);
  await page.waitForFunction(() => document.getElementById('connection-status').textContent === 'live');

  // Nothing was fetched from anywhere but the server.
  const foreign = requests.filter((url) => !url.startsWith(base) && !url.startsWith('data:'));
  check(foreign.length === 0, `requests elsewhere: ${foreign.join(' ')}`);
  check(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  await shot(page, '6-final');

  // ---- SIGTERM with the page's event stream open: serve stops within seconds, and the
  // stream ends cleanly (the page notices and tries to reconnect).
  const stopped = Date.now();
  serve.kill('SIGTERM');
  const exit = await Promise.race([
    serveExited,
    new Promise((resolve) => setTimeout(() => resolve(null), 15_000)),
  ]);
  check(exit !== null, 'serve did not exit within 15 s of SIGTERM');
  const seconds = (Date.now() - stopped) / 1000;
  check(exit.code === 0, `serve exited with ${exit.code} (signal ${exit.signal}) after SIGTERM: ${exit.stderr()}`);
  check(!/stopping took longer/.test(exit.stderr()), `serve needed its stop limit: ${exit.stderr()}`);
  check(seconds < 8, `serve took ${seconds.toFixed(1)} s to stop`);
  await page.waitForFunction(() => /reconnecting|connecting/.test(document.getElementById('connection-status').textContent));
  await browser.close();
  process.stdout.write(`dashboard test passed (serve stopped in ${seconds.toFixed(1)} s with a stream open)\n`);
}

main().catch((error) => fail(error && error.stack ? error.stack : error));
