// The HTML run report, end to end with the real binary:
//   node web/tests/report.test.mjs --hetsched PATH --artifacts DIR
// runs `hetsched simulate` (two policies, built-in workload and cluster) with --out, which writes
// report.html, redraws the runs with `hetsched report`, opens each page from disk in headless
// Chromium and checks the charts against the data embedded in the page (Gantt rows, series
// points, CDF points, summary columns and best values, pixel-bounded Gantt after a zoom), that
// names holding HTML show as text, that nothing is fetched and nothing is logged, and that
// `hetsched report` refuses bad input with status 2 and one line. Screenshots go to DIR.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser, parseArgs, collectConsoleErrors, fail } from './browser.mjs';

const args = parseArgs(process.argv);
if (!args.hetsched) fail('usage: node report.test.mjs --hetsched PATH --artifacts DIR');
const artifacts = path.resolve(args.artifacts || path.join(os.tmpdir(), 'hetsched-browser-artifacts'));
fs.mkdirSync(artifacts, { recursive: true });
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'hetsched-report-test-'));
const HTML_NAME = '<img src=x onerror="window.__injected=1">';

function hetsched(argv, { expectStatus = 0 } = {}) {
  const result = spawnSync(args.hetsched, argv, { encoding: 'utf8', timeout: 240000, env: process.env, maxBuffer: 64 << 20 });
  if (result.error) fail(`hetsched ${argv.join(' ')}: ${result.error.message}`);
  if (result.status !== expectStatus) {
    fail(`hetsched ${argv.join(' ')} exited with ${result.status} (expected ${expectStatus}): ${result.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  }
  return result;
}
function check(condition, message) { if (!condition) fail(message); }

// ---------- the runs ----------
const outDir = path.join(work, 'out');
hetsched(['simulate', '--policy', 'heft', '--policy', 'greedy-eft', '--out', outDir, '--quiet']);
const simulatePage = path.join(outDir, 'report.html');
check(fs.existsSync(simulatePage), `simulate --out ${outDir} wrote no report.html`);
const reportFiles = fs.readdirSync(outDir).filter((f) => f.endsWith('.report.json')).sort();
check(reportFiles.length === 2, `simulate --out wrote ${reportFiles.length} report files, expected 2`);
const redrawnPage = path.join(work, 'other.html');
hetsched(['report', outDir, '-o', redrawnPage]);
check(fs.existsSync(redrawnPage), 'hetsched report wrote no page');

// One run whose job, device and policy names and title hold HTML.
const heftReport = JSON.parse(fs.readFileSync(path.join(outDir, reportFiles.find((f) => f.startsWith('heft')) || reportFiles[0]), 'utf8'));
const renamed = new Map([[heftReport.jobs[0].name, HTML_NAME], [heftReport.devices[0].name, `${HTML_NAME}/gpu`],
  [heftReport.policy, `<b>${heftReport.policy}</b>`]]);
const rename = (value) => {
  if (typeof value === 'string') return renamed.has(value) ? renamed.get(value) : value;
  if (Array.isArray(value)) return value.map(rename);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, rename(v)]));
  return value;
};
const htmlNamesFile = path.join(work, 'html-names.report.json');
fs.writeFileSync(htmlNamesFile, JSON.stringify(rename(heftReport)));
const htmlNamesPage = path.join(work, 'html-names.html');
hetsched(['report', htmlNamesFile, '-o', htmlNamesPage, '--title', `title ${HTML_NAME}`]);

// A job stream (its runs drawn on device slots; no power model): three queue and round policies.
const streamDir = path.join(work, 'stream');
const streamExample = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../examples/stream_small.yaml');
hetsched(['simulate', '--workload', streamExample, '--out', streamDir, '--quiet']);
const streamPage = path.join(streamDir, 'report.html');

// Benchmarks that compare policies draw their first case under each: the energy plans (P-states)
// and the fault-tolerance modes (failures, restarts and checkpoints on the timeline).
const benchPages = [
  { label: 'bench energy', argv: ['bench', 'energy', '--dags', '1'],
    policies: ['insertion-eft-full-speed', 'energy-aware', 'energy-aware-plus-5pct'] },
  { label: 'bench faults', argv: ['bench', 'faults', '--runs', '1', '--seeds', '1', '--mtbf-hours', '10'],
    policies: ['none', 'daly', 'replication-2', 'replication-2+daly'] },
].map((bench) => {
  const dir = path.join(work, bench.label.replace(' ', '-'));
  hetsched([...bench.argv, '--out', dir, '--quiet']);
  return { ...bench, file: path.join(dir, 'report.html') };
});

// ---------- bad input: status 2, one line on stderr ----------
const goodText = fs.readFileSync(path.join(outDir, reportFiles[0]), 'utf8');
const badInputs = {
  'not-a-report.json': '{"hello": "world", "format": "something-else"}\n',
  'not-json.report.json': 'this is not a report\n',
  'truncated.report.json': goodText.slice(0, Math.floor(goodText.length / 2)),
  'newer.report.json': JSON.stringify(Object.assign(JSON.parse(goodText), { format_version: 999 })),
};
for (const [name, text] of Object.entries(badInputs)) {
  const file = path.join(work, name);
  fs.writeFileSync(file, text);
  const result = hetsched(['report', file, '-o', path.join(work, `${name}.html`)], { expectStatus: 2 });
  const lines = result.stderr.split('\n').filter((l) => l.trim() !== '');
  check(lines.length === 1, `hetsched report ${name}: expected one line on stderr, got ${lines.length}: ${lines.slice(0, 3).join(' | ')}`);
  check(!fs.existsSync(path.join(work, `${name}.html`)), `hetsched report ${name} wrote a page`);
}

// ---------- the pages ----------
const browser = await launchBrowser();
async function openPage(file, label) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = collectConsoleErrors(page);
  page.on('dialog', (dialog) => { errors.push(`dialog: ${dialog.message()}`); dialog.dismiss().catch(() => {}); });
  page.on('request', (request) => {
    if (!request.url().startsWith('file:') && !request.url().startsWith('data:')) errors.push(`fetched ${request.url()}`);
  });
  await page.goto(pathToFileURL(file).href);
  try {
    await page.waitForFunction(() => document.documentElement.dataset.rendered === '1'
      || document.documentElement.dataset.renderError !== undefined, null, { timeout: 90000 });
  } catch (e) { throw new Error(`${label}: the page did not finish rendering (${errors.join('; ') || e.message})`); }
  const renderError = await page.evaluate(() => document.documentElement.dataset.renderError);
  if (renderError !== undefined) throw new Error(`${label}: the page shows an error: ${renderError}`);
  const stages = await page.evaluate(() => [window.hetschedFirstRenderSeconds, window.hetschedRenderSeconds]);
  if (!(stages[0] > 0 && stages[0] <= stages[1])) throw new Error(`${label}: first screen at ${stages[0]} s, every chart at ${stages[1]} s`);
  return { page, errors };
}

// Everything the checks read, from the page's own data and charts.
async function pageFacts(page) {
  return page.evaluate(() => {
    const data = JSON.parse(document.getElementById('hetsched-report-data').textContent);
    const report = window.hetschedReport;
    const rawCounts = (chart) => chart.getOption().series.map((s, i) => ({
      name: s.name, type: s.type, count: chart.getModel().getSeriesByIndex(i).getRawData().count() }));
    const runs = data.runs.map((run, r) => {
      const lanes = new Set(run.transfers.node.map((n, i) => `${n}:${run.transfers.lane[i]}`));
      const gantt = report.charts[`gantt-${r}`];
      const temperature = report.charts[`temperature-${r}`];
      return {
        policy: run.policy,
        expectedRows: run.devices.length + lanes.size,
        tasks: run.tasks.start.length,
        ganttRows: gantt ? gantt.getOption().yAxis[0].data.length : -1,
        ganttWidth: gantt ? gantt.getWidth() : 0,
        drawn: report.ganttDrawnItems(r),
        utilTimes: run.series.utilization.times.length,
        utilKinds: Object.keys(run.series.utilization.by_kind).length,
        utilization: report.charts[`utilization-${r}`] ? rawCounts(report.charts[`utilization-${r}`]) : null,
        queueTimes: run.series.queue.times.length,
        queue: report.charts[`queue-${r}`] ? rawCounts(report.charts[`queue-${r}`]) : null,
        powerTimes: run.series.power.times.length,
        power: report.charts[`power-${r}`] ? rawCounts(report.charts[`power-${r}`]) : null,
        temperatureDevices: run.series.temperature ? run.series.temperature.devices.length : null,
        temperature: temperature ? rawCounts(temperature) : null,
        responses: run.jobs.filter((j) => typeof j.response_seconds === 'number').length,
        cdf: report.charts[`cdf-${r}`] ? rawCounts(report.charts[`cdf-${r}`]) : null,
        summary: run.summary.map((s) => ({ key: s.key, value: s.value, better: s.better })),
        chartElements: ['gantt', 'utilization', 'queue', 'cdf', ...(run.series.power.times.length ? ['power'] : [])]
          .every((k) => document.querySelector(`[data-chart="${k}-${r}"]`)),
      };
    });
    const table = document.getElementById('summary');
    return {
      runs,
      pareto: data.pareto ? { points: data.pareto.points.length, chart: report.charts.pareto ? rawCounts(report.charts.pareto) : null } : null,
      summaryColumns: table ? table.querySelectorAll('thead th').length - 1 : -1,
      summaryRows: table ? [...table.querySelectorAll('tbody tr')].map((tr) => ({
        key: tr.dataset.key, cells: tr.querySelectorAll('td').length, best: tr.querySelectorAll('td.best').length })) : [],
      images: document.querySelectorAll('#app img').length,
      injected: window.__injected === 1,
      heading: (document.querySelector('#app h1') || {}).textContent,
      chartTexts: [...document.querySelectorAll('#app th')].map((th) => th.textContent),
    };
  });
}

function checkFacts(facts, label) {
  check(facts.runs.length > 0, `${label}: no runs in the page data`);
  facts.runs.forEach((run, r) => {
    const where = `${label}, run ${r} (${run.policy})`;
    check(run.chartElements, `${where}: a chart container is missing`);
    check(run.ganttRows === run.expectedRows, `${where}: Gantt has ${run.ganttRows} rows, expected ${run.expectedRows} (devices + network lanes)`);
    check(run.drawn > 0 || run.tasks === 0, `${where}: the Gantt draws nothing`);
    check(run.drawn <= run.ganttRows * run.ganttWidth, `${where}: ${run.drawn} Gantt items drawn, more than rows × width`);
    check(run.utilization && run.utilization.length === run.utilKinds, `${where}: utilisation has ${run.utilization && run.utilization.length} series, expected ${run.utilKinds}`);
    for (const s of run.utilization) check(s.count === run.utilTimes, `${where}: utilisation ${s.name} has ${s.count} points, expected ${run.utilTimes}`);
    check(run.queue && run.queue[0].count === run.queueTimes, `${where}: queue has ${run.queue && run.queue[0].count} points, expected ${run.queueTimes}`);
    if (run.powerTimes === 0) check(run.power === null, `${where}: a power chart without power data`);
    else check(run.power && run.power[0].count === run.powerTimes, `${where}: power has ${run.power && run.power[0].count} points, expected ${run.powerTimes}`);
    if (run.temperatureDevices === null) check(run.temperature === null, `${where}: a temperature chart without temperature data`);
    else check(run.temperature && run.temperature.length === run.temperatureDevices, `${where}: temperature has ${run.temperature && run.temperature.length} series, expected ${run.temperatureDevices}`);
    check(run.cdf && run.cdf[0].count === run.responses, `${where}: the CDF has ${run.cdf && run.cdf[0].count} points, expected ${run.responses} jobs with a response`);
  });
  check(facts.summaryColumns === facts.runs.length, `${label}: the summary has ${facts.summaryColumns} run columns, expected ${facts.runs.length}`);
  const keys = facts.runs[0].summary.map((s) => s.key);
  check(facts.summaryRows.length >= keys.length, `${label}: the summary has ${facts.summaryRows.length} rows, expected ${keys.length}`);
  for (const row of facts.summaryRows) {
    check(row.cells === facts.runs.length, `${label}: summary row ${row.key} has ${row.cells} cells`);
    const values = facts.runs.map((run) => (run.summary.find((s) => s.key === row.key) || {}).value);
    const better = (facts.runs[0].summary.find((s) => s.key === row.key) || {}).better;
    const numbers = values.filter((v) => typeof v === 'number');
    const differ = numbers.length === values.length && new Set(numbers).size > 1;
    if (facts.runs.length === 2 && better && differ) check(row.best === 1, `${label}: summary row ${row.key} marks ${row.best} best values, expected 1`);
    if (!better || !differ) check(row.best === 0, `${label}: summary row ${row.key} marks a best value where none should be`);
  }
  if (facts.pareto) check(facts.pareto.chart && facts.pareto.chart[0].count === facts.pareto.points, `${label}: the Pareto chart misses points`);
  check(facts.images === 0 && !facts.injected, `${label}: a name was inserted as HTML`);
}

async function zoomGantt(page) {
  return page.evaluate(async () => {
    const report = window.hetschedReport;
    const chart = report.charts['gantt-0'];
    // A window of 5 % of the run around its median task start, where tasks are dense.
    const [t0, t1] = report.ganttWindow(0);
    const starts = JSON.parse(document.getElementById('hetsched-report-data').textContent).runs[0].tasks.start.slice().sort((x, y) => x - y);
    const middle = starts.length ? starts[starts.length >> 1] : (t0 + t1) / 2;
    const from = Math.max(t0, middle - (t1 - t0) * 0.025), to = Math.min(t1, from + (t1 - t0) * 0.05);
    chart.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, startValue: from, endValue: to });
    for (let i = 0; i < 100; i++) {
      await new Promise((resolve) => requestAnimationFrame(resolve));
      const w = report.ganttWindow(0);
      if (Math.abs(w[0] - from) < 1e-6 * (1 + Math.abs(from)) && Math.abs(w[1] - to) < 1e-6 * (1 + Math.abs(to))) break;
    }
    await new Promise((resolve) => requestAnimationFrame(resolve));
    const rows = chart.getOption().yAxis[0].data.length;
    const others = Object.keys(report.charts).filter((id) => id.startsWith('gantt-') && id !== 'gantt-0')
      .map((id) => report.ganttWindow(Number(id.slice(6))));
    return { window: report.ganttWindow(0), wanted: [from, to], drawn: report.ganttDrawnItems(0), rows, width: chart.getWidth(),
      others: report.ganttsLinked() ? others : [] };
  });
}

try {
  for (const [file, label] of [[simulatePage, 'simulate --out'], [redrawnPage, 'hetsched report']]) {
    const { page, errors } = await openPage(file, label);
    const facts = await pageFacts(page);
    checkFacts(facts, label);
    check(facts.runs.length === 2, `${label}: ${facts.runs.length} runs, expected 2`);
    const name = label.replace(/[^a-z]+/g, '-');
    await page.screenshot({ path: path.join(artifacts, `report-${name}.png`), fullPage: true });
    const zoom = await zoomGantt(page);
    check(Math.abs(zoom.window[0] - zoom.wanted[0]) < 1e-6 * (1 + zoom.wanted[0]), `${label}: the Gantt did not follow the zoom (${zoom.window} vs ${zoom.wanted})`);
    check(zoom.drawn <= zoom.rows * zoom.width, `${label}: ${zoom.drawn} Gantt items drawn after zooming, more than ${zoom.rows} rows × ${zoom.width} px`);
    for (const w of zoom.others) check(w && Math.abs(w[0] - zoom.window[0]) < 1e-6 * (1 + zoom.window[0]), `${label}: the other Gantt charts did not follow the zoom`);
    await page.locator('[data-chart="gantt-0"]').screenshot({ path: path.join(artifacts, `report-${name}-gantt-zoomed.png`) });
    check(errors.length === 0, `${label}: ${errors.join('; ')}`);
    await page.close();
  }
  {
    const { page, errors } = await openPage(streamPage, 'job stream');
    const facts = await pageFacts(page);
    checkFacts(facts, 'job stream');
    check(facts.runs.length === 3, `job stream: ${facts.runs.length} runs, expected 3`);
    await page.screenshot({ path: path.join(artifacts, 'report-job-stream.png'), fullPage: true });
    check(errors.length === 0, `job stream: ${errors.join('; ')}`);
    await page.close();
  }
  for (const bench of benchPages) {
    const { page, errors } = await openPage(bench.file, bench.label);
    const facts = await pageFacts(page);
    checkFacts(facts, bench.label);
    const drawn = facts.runs.map((run) => run.policy).join(',');
    check(drawn === bench.policies.join(','), `${bench.label}: runs ${drawn}, expected ${bench.policies.join(',')}`);
    await page.screenshot({ path: path.join(artifacts, `report-${bench.label.replace(' ', '-')}.png`), fullPage: true });
    check(errors.length === 0, `${bench.label}: ${errors.join('; ')}`);
    await page.close();
  }
  const { page, errors } = await openPage(htmlNamesPage, 'names with HTML');
  const facts = await pageFacts(page);
  checkFacts(facts, 'names with HTML');
  check(facts.heading === `title ${HTML_NAME}`, `names with HTML: the heading shows ${JSON.stringify(facts.heading)}`);
  check(facts.chartTexts.includes(`<b>${heftReport.policy}</b>`), 'names with HTML: the policy name is not shown as text in the summary');
  await page.hover('[data-chart="gantt-0"]');
  await page.screenshot({ path: path.join(artifacts, 'report-html-names.png'), fullPage: true });
  check(errors.length === 0, `names with HTML: ${errors.join('; ')}`);
  await page.close();
} catch (error) {
  await browser.close();
  fail(error && error.message ? error.message : error);
}
await browser.close();
fs.rmSync(work, { recursive: true, force: true });
console.log(`report pages ok (screenshots in ${artifacts})`);
