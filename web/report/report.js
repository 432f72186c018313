/*
 * hetsched run report. Reads the page data (JSON in <script id="hetsched-report-data">, written
 * by `hetsched report` / `hetsched simulate --out`) and shows, all offline with ECharts:
 *   - a summary table (one column per run, the best value of each row marked),
 *   - per run, side by side: a zoomable Gantt chart (one row per device grouped by node, then the
 *     node's network lanes; tasks coloured by job, transfers on the lanes, failures, restarts,
 *     checkpoints and migrations as symbols), utilisation per device kind, ready-queue length,
 *     power against its caps, temperature against its limit, and the job completion CDF with
 *     missed deadlines,
 *   - the Pareto front of the sweep when there is one.
 *
 * The Gantt aggregates as Perfetto does: on every zoom, each row keeps only the items that
 * intersect the visible window, and a run of items shorter than a pixel (with gaps under a pixel)
 * becomes one block, as does any item starting within a pixel of the block's start. Block starts
 * on a row are thus at least a pixel apart, so at most rows × plot width rectangles are drawn
 * whatever the number of tasks. Each row is one ECharts custom-series item drawing its blocks as
 * a group. Runs whose spans are within 4x share the time axis, and their Gantt charts zoom together.
 *
 * The charts on the first screen are built first; once they are drawn, the others follow one
 * group at a time, each in a task of its own, so the browser shows the first screen at once.
 *
 * Test hooks: document.documentElement.dataset.firstRender = "1" and
 * window.hetschedFirstRenderSeconds once the charts of the first screen are drawn;
 * dataset.rendered = "1" and window.hetschedRenderSeconds once every chart has finished its
 * first render (renderError holds the message instead when the data cannot be shown);
 * window.hetschedReport.charts (id -> instance), ganttDrawnItems(run), ganttWindow(run) and
 * ganttsLinked().
 */
(function () {
  'use strict';

  const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';
  const KIND_COLOURS = { gpu: '#4e79a7', cpu: '#f28e2b', tpu: '#59a14f' };
  const EXTRA_COLOURS = ['#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f'];
  const RUN_COLOURS = ['#4e79a7', '#e15759', '#59a14f', '#b07aa1', '#f28e2b', '#76b7b2'];
  const MIXED_COLOUR = '#98a2b3';
  const TRANSFER_COLOUR = '#5fa8a0';
  const MARK_STYLES = {
    failure: { name: 'failure', colour: '#d62728', size: 11,
      symbol: 'path://M2,0L5,3L8,0L10,2L7,5L10,8L8,10L5,7L2,10L0,8L3,5L0,2Z' },
    restart: { name: 'restart', colour: '#2ca02c', size: 10, symbol: 'triangle' },
    checkpoint: { name: 'checkpoint', colour: '#1f77b4', size: 8, symbol: 'diamond' },
    migration: { name: 'migration', colour: '#9467bd', size: 11, symbol: 'arrow' },
  };
  const GANTT_GRID = { left: 170, right: 30, top: 56, bottom: 58 };
  const GANTT_VISIBLE_ROWS = 40;

  const charts = {};
  const firstRenders = [];
  const gantts = [];
  let linkedGantts = false;
  const encode = (s) => echarts.format.encodeHTML(String(s));

  // ---------- small helpers ----------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'class') node.className = v;
      else if (k === 'style') node.style.cssText = v;
      else node.setAttribute(k, v);
    }
    for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
    return node;
  }
  const sig4 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 4 });
  const sig6 = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 6 });
  const fixed1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
  function fmtNumber(v) {
    if (v === null || v === undefined) return '—';
    if (typeof v !== 'number') return String(v);
    if (!Number.isFinite(v)) return String(v);
    if (Number.isInteger(v)) return v.toLocaleString('en-US');
    return Math.abs(v) >= 1e6 ? Math.round(v).toLocaleString('en-US') : Math.abs(v) >= 1000 ? fixed1.format(v) : sig4.format(v);
  }
  const fmtAxis = (v) => (Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en-US') : sig4.format(v));
  const fmtTime = (s) => (s === null || s === undefined ? '—' : `${sig6.format(s)} s`);
  function fmtBytes(b) {
    const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
    let i = 0;
    while (Math.abs(b) >= 1000 && i < units.length - 1) { b /= 1000; i++; }
    return `${sig4.format(b)} ${units[i]}`;
  }
  const arr = (a) => (Array.isArray(a) ? a : []);
  function maxOf(values) {
    let m = -Infinity;
    for (let i = 0; i < values.length; i++) if (values[i] > m) m = values[i];
    return m;
  }
  // An axis from 0 to at least v in about five steps of 1, 2, 2.5 or 5 × 10^k, ending on a tick
  // (so that runs side by side share one scale); {} when there is nothing to show.
  function niceAxis(v, integer) {
    if (!(v > 0)) return {};
    const raw = v / 5, base = 10 ** Math.floor(Math.log10(raw));
    let interval = [1, 2, 2.5, 5, 10].map((m) => m * base).find((x) => x >= raw * (1 - 1e-12));
    if (integer) interval = Math.max(1, Math.ceil(interval));
    return { min: 0, max: Math.ceil(v / interval - 1e-9) * interval, interval };
  }
  function lowerBound(sorted, value) {
    let lo = 0, hi = sorted.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < value) lo = mid + 1; else hi = mid; }
    return lo;
  }
  const jobColours = [];
  function jobColour(job) {
    if (job < 0) return MIXED_COLOUR;
    if (!jobColours[job]) {
      // Golden-angle hues with three lightness levels: stable by job index, neighbours distinct.
      const hue = (job * 137.508 + 210) % 360;
      jobColours[job] = `hsl(${hue.toFixed(1)}, 58%, ${[52, 42, 62][job % 3]}%)`;
    }
    return jobColours[job];
  }
  function tooltipTable(rows) {
    return rows.map(([k, v]) => `<div class="tip-row"><span class="tip-key">${encode(k)}</span>`
      + `<span class="tip-value">${encode(v)}</span></div>`).join('');
  }

  // ---------- chart creation ----------
  function makeChart(id, container, option, beforeFirstRender) {
    const chart = echarts.init(container, null, { renderer: 'canvas' });
    if (beforeFirstRender) beforeFirstRender(chart);
    firstRenders.push(new Promise((resolve) => {
      const once = () => { chart.off('finished', once); resolve(); };
      chart.on('finished', once);
    }));
    chart.setOption(Object.assign({ animation: false, textStyle: { fontFamily: FONT } }, option));
    charts[id] = chart;
    return chart;
  }
  function chartTitle(text, subtext) {
    return { text, subtext: subtext || '', left: 10, top: 6, itemGap: 4,
      textStyle: { fontSize: 14, fontWeight: 600, color: '#1f2937' },
      subtextStyle: { fontSize: 12, color: '#6b7280' } };
  }
  function chartBox(id, extraClass) {
    return el('div', { class: `chart ${extraClass || ''}`.trim(), id, 'data-chart': id });
  }
  const timeAxis = (range) => ({ type: 'value', name: 'time (s)', nameLocation: 'middle', nameGap: 26,
    min: range[0], max: range[1], axisLabel: { hideOverlap: true, formatter: fmtAxis }, splitLine: { lineStyle: { color: '#eef0f4' } } });

  // ---------- page data ----------
  function readPage() {
    const script = document.getElementById('hetsched-report-data');
    if (!script) throw new Error('the page holds no report data (no #hetsched-report-data block)');
    let page;
    try { page = JSON.parse(script.textContent); } catch (e) {
      throw new Error(`the report data is not valid JSON: ${e.message}`);
    }
    if (!page || page.format !== 'hetsched-report-page') throw new Error('the report data is not a hetsched report page');
    if (page.version !== 1) throw new Error(`report page version ${page.version} is not supported (this page reads version 1)`);
    if (!Array.isArray(page.runs)) throw new Error('the report data has no runs');
    return page;
  }

  // The time range shared by every run's time charts: 0 (or earlier) to the last instant seen.
  function timeRange(runs) {
    let lo = 0, hi = 0;
    const see = (values) => { for (const v of arr(values)) if (Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; } };
    for (const run of runs) {
      see(run.tasks && run.tasks.start); see(run.tasks && run.tasks.finish);
      see(run.transfers && run.transfers.finish); see(run.marks && run.marks.seconds);
      const s = run.series || {};
      for (const k of ['utilization', 'queue', 'power', 'temperature']) see(s[k] && s[k].times);
      for (const j of arr(run.jobs)) see([j.arrival_seconds, j.completion_seconds]);
    }
    return [lo, hi > lo ? hi : lo + 1];
  }

  // ---------- summary table ----------
  function summaryTable(runs) {
    const keys = [];
    const labels = new Map();
    const better = new Map();
    for (const run of runs) for (const row of arr(run.summary)) {
      if (!labels.has(row.key)) { keys.push(row.key); labels.set(row.key, row.label || row.key); }
      if (row.better && !better.has(row.key)) better.set(row.key, row.better);
    }
    const table = el('table', { id: 'summary', class: 'summary' });
    const head = el('tr', {}, el('th', { scope: 'col' }, 'metric'));
    runs.forEach((run, r) => head.append(el('th', { scope: 'col', class: 'run-name' },
      el('span', { class: 'swatch', style: `background:${RUN_COLOURS[r % RUN_COLOURS.length]}` }), run.policy || `run ${r + 1}`)));
    table.append(el('thead', {}, head));
    const body = el('tbody');
    for (const key of keys) {
      const values = runs.map((run) => { const row = arr(run.summary).find((x) => x.key === key); return row ? row.value : null; });
      const tr = el('tr', { 'data-key': key }, el('th', { scope: 'row' }, labels.get(key)));
      const numeric = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
      let best = null;
      if (runs.length > 1 && better.get(key) && numeric.length > 1 && numeric.some((v) => v !== numeric[0])) {
        best = better.get(key) === 'higher' ? Math.max(...numeric) : Math.min(...numeric);
      }
      values.forEach((v) => tr.append(el('td', best !== null && v === best ? { class: 'best', title: 'best' } : {}, fmtNumber(v))));
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  // ---------- Gantt ----------
  // Rows: each node's devices in data order, then the node's network lanes; every row holds its
  // items sorted by start (item index into tasks or transfers, start and finish).
  function ganttRows(run) {
    const nodes = arr(run.nodes), devices = arr(run.devices);
    const tasks = run.tasks || {}, transfers = run.transfers || {};
    const nodeName = (n) => (nodes[n] && nodes[n].name !== undefined ? String(nodes[n].name) : `node ${n}`);
    const groups = new Map();
    const group = (n) => { if (!groups.has(n)) groups.set(n, { devices: [], lanes: new Set() }); return groups.get(n); };
    devices.forEach((d, i) => group(Number.isInteger(d.node) ? d.node : -1).devices.push(i));
    const tn = arr(transfers.node), tl = arr(transfers.lane);
    for (let i = 0; i < tn.length; i++) group(tn[i]).lanes.add(tl[i]);
    const rows = [], deviceRow = new Int32Array(devices.length).fill(-1), laneRow = new Map();
    const order = [...groups.keys()].sort((a, b) => (a < 0) - (b < 0) || a - b);
    order.forEach((n, g) => {
      const { devices: ds, lanes } = groups.get(n);
      for (const d of ds) {
        // The node's name leads each row label (device names usually start with it already).
        const name = String(devices[d].name), node = n >= 0 ? nodeName(n) : '';
        deviceRow[d] = rows.length;
        rows.push({ label: !node || name.startsWith(node) ? name : `${node} · ${name}`, node: n, band: g, source: 'task' });
      }
      for (const lane of [...lanes].sort((a, b) => a - b)) {
        laneRow.set(n * 65536 + lane, rows.length);
        rows.push({ label: `${nodeName(n)} net ${lane + 1}`, node: n, band: g, source: 'transfer' });
      }
    });
    // Bucket the items by row (counting sort, keeping data order), then sort each row by start
    // unless it already is.
    const fill = (rowOf, count, start, finish) => {
      const rowIndex = new Int32Array(count), offsets = new Int32Array(rows.length + 1);
      for (let i = 0; i < count; i++) {
        const r = rowOf(i);
        rowIndex[i] = r >= 0 && Number.isFinite(start[i]) && Number.isFinite(finish[i]) ? r : -1;
        if (rowIndex[i] >= 0) offsets[rowIndex[i] + 1]++;
      }
      for (let r = 0; r < rows.length; r++) offsets[r + 1] += offsets[r];
      const order = new Int32Array(offsets[rows.length]), next = offsets.slice(0, rows.length);
      for (let i = 0; i < count; i++) if (rowIndex[i] >= 0) order[next[rowIndex[i]]++] = i;
      rows.forEach((row, r) => {
        const index = order.subarray(offsets[r], offsets[r + 1]), n = index.length;
        if (!n) return;
        for (let k = 1; k < n; k++) if (start[index[k]] < start[index[k - 1]]) { index.sort((a, b) => start[a] - start[b]); break; }
        row.index = index;
        row.starts = new Float64Array(n);
        row.ends = new Float64Array(n);
        let maxDur = 0;
        for (let k = 0; k < n; k++) {
          const i = index[k];
          row.starts[k] = start[i];
          row.ends[k] = Math.max(start[i], finish[i]);
          maxDur = Math.max(maxDur, row.ends[k] - row.starts[k]);
        }
        row.maxDur = maxDur;
      });
    };
    const td = arr(tasks.device);
    fill((i) => (td[i] >= 0 && td[i] < devices.length ? deviceRow[td[i]] : -1), td.length, arr(tasks.start), arr(tasks.finish));
    fill((i) => { const r = laneRow.get(tn[i] * 65536 + tl[i]); return r === undefined ? -1 : r; },
      tn.length, arr(transfers.start), arr(transfers.finish));
    return { rows, deviceRow, nodeName };
  }

  // Blocks drawn for the window [t0, t1] at `width` pixels: [row, start, end, count, item, job, kind]
  // (kind 0 = task, 1 = transfer; job -1 when a merged block spans several jobs), row by row and
  // by start within a row; g.rowBlocks lists [row, first block, end] for the rows with blocks.
  function aggregate(g, t0, t1, width) {
    const px = (t1 - t0) / Math.max(1, width);
    const blocks = [];
    g.rowBlocks = [];
    const jobOf = arr(g.run.tasks && g.run.tasks.job);
    g.rows.forEach((row, r) => {
      if (!row.starts) return;
      const S = row.starts, E = row.ends, I = row.index, n = S.length;
      const kind = row.source === 'task' ? 0 : 1;
      let block = null, smallRun = false;
      for (let k = lowerBound(S, t0 - row.maxDur); k < n && S[k] <= t1; k++) {
        if (E[k] < t0) continue;
        const s = S[k] < t0 ? t0 : S[k], e = E[k] > t1 ? t1 : E[k];
        const small = e - s < px;
        const job = kind === 0 ? (jobOf[I[k]] ?? -1) : -1;
        if (block && (s < block[1] + px || (small && smallRun && s - block[2] < px))) {
          block[3]++;
          if (e > block[2]) block[2] = e;
          if (block[5] !== job) block[5] = -1;
          smallRun = smallRun && small;
        } else {
          block = [r, s, e, 1, I[k], job, kind];
          blocks.push(block);
          smallRun = small;
        }
      }
      if (block) g.rowBlocks.push([r, g.rowBlocks.length ? g.rowBlocks[g.rowBlocks.length - 1][2] : 0, blocks.length]);
    });
    g.window = [t0, t1];
    g.width = width;
    g.blocks = blocks;
  }

  // One data item per row, drawn as a group of its blocks' rectangles (far cheaper in ECharts
  // than one data item per block).
  function renderRow(g, params, api) {
    const [r, from, to] = g.rowBlocks[params.dataIndex];
    const cs = params.coordSys;
    const [t0, t1] = g.window, a = api.coord([t0, r]), b = api.coord([t1, r]);
    const y = a[1], h = Math.max(1, api.size([0, 1])[1] * 0.74);
    if (y + h / 2 < cs.y || y - h / 2 > cs.y + cs.height) return null;
    const origin = a[0], scale = (b[0] - a[0]) / (t1 - t0), right = cs.x + cs.width;
    const children = [];
    for (let k = from; k < to; k++) {
      const block = g.blocks[k];
      const x0 = Math.max(cs.x, origin + (block[1] - t0) * scale), x1 = Math.min(right, origin + (block[2] - t0) * scale);
      if (x0 >= right || x1 < cs.x) continue;
      children.push({ type: 'rect', shape: { x: x0, y: y - h / 2, width: Math.max(1, x1 - x0), height: h },
        style: { fill: block[6] === 1 ? TRANSFER_COLOUR : jobColour(block[5]) } });
    }
    return { type: 'group', children };
  }

  // The block under the pointer on row entry `item` (tooltips name the row, not the rectangle).
  function blockAt(g, item) {
    const [, from, to] = g.rowBlocks[item];
    if (!g.pointer) return g.blocks[from];
    const [t] = g.chart.convertFromPixel({ gridIndex: 0 }, g.pointer);
    const slack = (g.window[1] - g.window[0]) / Math.max(1, g.width);
    let lo = from, hi = to;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (g.blocks[mid][1] <= t) lo = mid + 1; else hi = mid; }
    for (const k of [lo - 1, lo]) if (k >= from && k < to && g.blocks[k][1] - slack <= t && t <= g.blocks[k][2] + slack) return g.blocks[k];
    return g.blocks[Math.max(from, Math.min(to - 1, lo - 1))];
  }

  function renderBand(params, api) {
    const top = api.coord([0, api.value(0)]), bottom = api.coord([0, api.value(1)]);
    const half = api.size([0, 1])[1] / 2;
    const cs = params.coordSys;
    const shape = echarts.graphic.clipRectByRect(
      { x: cs.x, y: top[1] - half, width: cs.width, height: bottom[1] - top[1] + 2 * half },
      { x: cs.x, y: cs.y, width: cs.width, height: cs.height });
    if (!shape) return null;
    return { type: 'rect', shape, silent: true, style: { fill: api.value(2) % 2 ? '#ffffff' : '#f3f5f9' } };
  }

  function ganttTooltip(g, block) {
    const [, s, e, count, item, job, kind] = block;
    const run = g.run;
    if (count > 1) {
      const what = kind === 0 ? 'tasks' : 'transfers';
      return `<b>${count} ${what} merged</b>${tooltipTable([
        ['row', g.rows[block[0]].label], ['from', fmtTime(s)], ['to', fmtTime(e)],
        ['job', job >= 0 ? (run.jobs[job] || {}).name ?? job : 'several']])}`;
    }
    if (kind === 1) {
      const t = run.transfers;
      return `<b>transfer</b>${tooltipTable([['lane', g.rows[block[0]].label], ['bytes', fmtBytes(t.bytes[item])],
        ['start', fmtTime(t.start[item])], ['finish', fmtTime(t.finish[item])], ['duration', fmtTime(t.finish[item] - t.start[item])]])}`;
    }
    const t = run.tasks;
    const jobName = (arr(run.jobs)[t.job[item]] || {}).name;
    const device = arr(run.devices)[t.device[item]] || {};
    return `<b>${encode(arr(t.name)[item] ?? `task ${item}`)}</b>${tooltipTable([
      ['job', jobName ?? t.job[item]], ['device', `${device.name ?? t.device[item]}${device.model ? ` (${device.model})` : ''}`],
      ['start', fmtTime(t.start[item])], ['finish', fmtTime(t.finish[item])], ['duration', fmtTime(t.finish[item] - t.start[item])]])}`;
  }

  function markSeries(run, g) {
    const marks = run.marks || {};
    const kinds = arr(marks.kind), device = arr(marks.device), seconds = arr(marks.seconds);
    const byKind = new Map();
    for (let i = 0; i < kinds.length; i++) {
      const row = device[i] >= 0 && device[i] < g.deviceRow.length ? g.deviceRow[device[i]] : -1;
      if (row < 0 || !Number.isFinite(seconds[i])) continue;
      if (!byKind.has(kinds[i])) byKind.set(kinds[i], []);
      byKind.get(kinds[i]).push([seconds[i], row, i]);
    }
    let extra = 0;
    return [...byKind.entries()].map(([kind, data]) => {
      const style = MARK_STYLES[kind] || { name: String(kind), colour: EXTRA_COLOURS[extra++ % EXTRA_COLOURS.length], size: 9, symbol: 'circle' };
      return { type: 'scatter', name: style.name, data, symbol: style.symbol, symbolSize: style.size, z: 5, progressive: 0,
        large: data.length > 5000, itemStyle: { color: style.colour, borderColor: '#fff', borderWidth: 0.5 },
        encode: { x: 0, y: 1 },
        tooltip: { formatter: (p) => {
          const i = p.data[2];
          const jobName = marks.job && marks.job[i] >= 0 ? ((run.jobs[marks.job[i]] || {}).name ?? marks.job[i]) : '—';
          return `<b>${encode(kinds[i])}</b>${tooltipTable([['device', (run.devices[device[i]] || {}).name ?? device[i]],
            ['job', jobName], ['time', fmtTime(seconds[i])]])}`;
        } } };
    });
  }

  function buildGantt(run, r, container, range) {
    const g = Object.assign({ run, index: r, chart: null, blocks: [], window: range.slice(), pending: false }, ganttRows(run));
    const rowCount = g.rows.length;
    const rowHeight = rowCount > GANTT_VISIBLE_ROWS ? 16 : Math.max(14, Math.min(26, 460 / Math.max(1, rowCount)));
    container.style.height = `${Math.round(GANTT_GRID.top + GANTT_GRID.bottom + Math.min(rowCount, GANTT_VISIBLE_ROWS) * rowHeight + 8)}px`;
    const bands = [];
    g.rows.forEach((row, i) => {
      const last = bands[bands.length - 1];
      if (last && last[2] === row.band) last[1] = i; else bands.push([i, i, row.band]);
    });
    const plotWidth = () => Math.max(1, (g.chart ? g.chart.getWidth() : container.clientWidth) - GANTT_GRID.left - GANTT_GRID.right);
    aggregate(g, range[0], range[1], plotWidth());
    const marks = markSeries(run, g);
    const taskCount = arr(run.tasks && run.tasks.start).length;
    const dataZoom = [
      { type: 'inside', xAxisIndex: 0, filterMode: 'none' },
      { type: 'slider', xAxisIndex: 0, filterMode: 'none', height: 18, bottom: 8, showDetail: false, brushSelect: false },
    ];
    if (rowCount > GANTT_VISIBLE_ROWS) {
      dataZoom.push({ type: 'slider', yAxisIndex: 0, filterMode: 'none', right: 6, width: 14, startValue: 0,
        endValue: GANTT_VISIBLE_ROWS - 1, showDetail: false, brushSelect: false });
    }
    g.chart = makeChart(`gantt-${r}`, container, {
      title: chartTitle(`${run.policy ?? `run ${r + 1}`}: schedule`,
        `${taskCount.toLocaleString('en-US')} ${run.workload_kind === 'stream' ? 'job runs' : 'tasks'} on ${arr(run.devices).length} devices`),
      legend: marks.length ? { top: 8, right: 12, itemWidth: 12, itemHeight: 10, textStyle: { fontSize: 11 }, data: marks.map((m) => m.name) } : undefined,
      tooltip: { trigger: 'item', confine: true, className: 'report-tooltip' },
      grid: GANTT_GRID,
      xAxis: timeAxis(range),
      yAxis: { type: 'category', inverse: true, data: g.rows.map((row) => row.label),
        axisTick: { show: false }, splitLine: { show: false },
        axisLabel: { width: GANTT_GRID.left - 14, overflow: 'truncate', fontSize: 11, interval: 0,
          color: (value, index) => (g.rows[index] && g.rows[index].source === 'transfer' ? '#0f766e' : '#374151') } },
      dataZoom,
      series: [
        { type: 'custom', name: 'nodes', renderItem: renderBand, data: bands, encode: { y: [0, 1] }, silent: true, z: 1, tooltip: { show: false } },
        { type: 'custom', name: 'schedule', renderItem: (params, api) => renderRow(g, params, api), data: g.rowBlocks,
          encode: { y: 0 }, z: 2, clip: true, progressive: 0, emphasis: { disabled: true },
          tooltip: { formatter: (p) => ganttTooltip(g, blockAt(g, p.dataIndex)) } },
        ...marks,
      ],
    }, (chart) => {
      // Registered before the tooltip's own listener, so tooltips see this pointer position.
      chart.getZr().on('mousemove', (e) => { g.pointer = [e.offsetX, e.offsetY]; });
    });
    g.chart.on('datazoom', () => scheduleAggregate(g));
    g.resize = () => { g.chart.resize(); scheduleAggregate(g, true); };
    g.plotWidth = plotWidth;
    gantts.push(g);
  }

  // The current x window of a Gantt, read from its axis after the zoom has been applied.
  function visibleWindow(g) {
    try {
      const extent = g.chart.getModel().getComponent('xAxis', 0).axis.scale.getExtent();
      if (Number.isFinite(extent[0]) && Number.isFinite(extent[1]) && extent[1] > extent[0]) return extent;
    } catch (e) { /* fall through */ }
    return g.window;
  }

  function scheduleAggregate(g, force) {
    if (g.pending) return;
    g.pending = true;
    requestAnimationFrame(() => {
      g.pending = false;
      const [t0, t1] = visibleWindow(g);
      const width = g.plotWidth();
      if (!force && t0 === g.window[0] && t1 === g.window[1] && width === g.width) return;
      aggregate(g, t0, t1, width);
      g.chart.setOption({ series: [{}, { data: g.rowBlocks }] });
      // Every run's Gantt shows the same window when they share a time axis.
      for (const other of gantts) {
        if (other === g || !linkedGantts) continue;
        const w = visibleWindow(other);
        if (Math.abs(w[0] - t0) > 1e-9 * (1 + Math.abs(t0)) || Math.abs(w[1] - t1) > 1e-9 * (1 + Math.abs(t1))) {
          other.chart.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, startValue: t0, endValue: t1 });
        }
      }
    });
  }

  // ---------- time series ----------
  function stepSeries(name, source, y, colour, extra) {
    const n = source.times.length;
    return Object.assign({ type: 'line', name, datasetIndex: 0, encode: { x: 'times', y }, step: 'end', showSymbol: false,
      sampling: n > 4000 ? 'lttb' : undefined, lineStyle: { width: 1.5 }, color: colour, emphasis: { disabled: true } }, extra || {});
  }

  function timeChart(id, container, title, subtitle, range, source, series, yAxis, valueFormatter) {
    return makeChart(id, container, {
      title: chartTitle(title, subtitle),
      legend: series.length > 1 ? { top: 8, right: 12, type: 'scroll', width: '45%', textStyle: { fontSize: 11 } } : undefined,
      tooltip: { trigger: 'axis', confine: true, className: 'report-tooltip', valueFormatter,
        axisPointer: { type: 'line', snap: false }, order: 'seriesDesc' },
      grid: { left: 64, right: 28, top: 62, bottom: 58 },
      dataset: { source },
      xAxis: timeAxis(range),
      yAxis: Object.assign({ type: 'value', nameLocation: 'end', nameGap: 10, nameTextStyle: { align: 'left' },
        splitLine: { lineStyle: { color: '#eef0f4' } } }, yAxis),
      dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }],
      series,
    });
  }

  function capLine(value, name) {
    return { yAxis: value, name, label: { formatter: `${name} ${fmtNumber(value)} W`, position: 'insideEndTop', color: '#b42318' } };
  }

  function buildSeriesCharts(run, r, boxes, range, scales) {
    const s = run.series || {};
    const policy = run.policy ?? `run ${r + 1}`;
    const util = s.utilization || { times: [], by_kind: {} };
    const kinds = Object.keys(util.by_kind || {});
    let extra = 0;
    const utilSource = { times: arr(util.times) };
    kinds.forEach((k) => { utilSource[`kind:${k}`] = arr(util.by_kind[k]); });
    timeChart(`utilization-${r}`, boxes.utilization, `${policy}: utilisation`, 'busy share of each device kind',
      range, utilSource,
      kinds.map((k) => stepSeries(k.toUpperCase(), utilSource, `kind:${k}`, KIND_COLOURS[k] || EXTRA_COLOURS[extra++ % EXTRA_COLOURS.length])),
      { min: 0, max: 1, interval: 0.25, axisLabel: { formatter: (v) => `${Math.round(v * 100)} %` } },
      (v) => (v == null ? '—' : `${(v * 100).toFixed(1)} %`));

    const queue = s.queue || {};
    const queueSource = { times: arr(queue.times), tasks: arr(queue.tasks) };
    timeChart(`queue-${r}`, boxes.queue, `${policy}: ready queue`, 'tasks ready and waiting for a device', range, queueSource,
      [stepSeries('ready tasks', queueSource, 'tasks', '#7c5cbf', { areaStyle: { opacity: 0.12 } })],
      Object.assign({ minInterval: 1, name: 'tasks' }, scales.queue), (v) => fmtNumber(v));

    if (boxes.power) {
      const power = s.power || {};
      const powerSource = { times: arr(power.times), watts: arr(power.watts) };
      const caps = [];
      if (Number.isFinite(power.cap_watts)) caps.push(capLine(power.cap_watts, 'cluster cap'));
      if (Number.isFinite(power.node_cap_watts)) caps.push(capLine(power.node_cap_watts, 'node cap'));
      timeChart(`power-${r}`, boxes.power, `${policy}: power`, caps.length ? 'cluster draw against its cap(s)' : 'cluster draw (no cap)',
        range, powerSource,
        [stepSeries('power', powerSource, 'watts', '#e15759', {
          areaStyle: { opacity: 0.1 },
          markLine: caps.length ? { silent: true, symbol: 'none', lineStyle: { color: '#b42318', type: 'dashed', width: 1.5 }, data: caps } : undefined })],
        Object.assign({ name: 'W' }, scales.power), (v) => (v == null ? '—' : `${fmtNumber(v)} W`));
    }

    const temp = s.temperature;
    if (temp && boxes.temperature) {
      const source = { times: arr(temp.times) };
      const devs = arr(temp.devices);
      devs.forEach((d, i) => { source[`d${i}`] = arr(d.celsius); });
      const series = devs.map((d, i) => ({ type: 'line', name: String((arr(run.devices)[d.device] || {}).name ?? `device ${d.device}`),
        datasetIndex: 0, encode: { x: 'times', y: `d${i}` }, showSymbol: false, lineStyle: { width: 1.2 },
        sampling: source.times.length > 4000 ? 'lttb' : undefined, emphasis: { focus: 'series' } }));
      if (series.length && Number.isFinite(temp.limit_celsius)) {
        series[0].markLine = { silent: true, symbol: 'none', lineStyle: { color: '#b42318', type: 'dashed', width: 1.5 },
          data: [{ yAxis: temp.limit_celsius, label: { formatter: `limit ${fmtNumber(temp.limit_celsius)} °C`, position: 'insideEndTop', color: '#b42318' } }] };
      }
      timeChart(`temperature-${r}`, boxes.temperature, `${policy}: temperature`, `${devs.length} devices against the throttling limit`,
        range, source, series, { name: '°C', min: (v) => Math.floor(v.min / 10) * 10,
          max: (v) => Math.ceil((Math.max(v.max, temp.limit_celsius ?? v.max) + 1) / 10) * 10 },
        (v) => (v == null ? '—' : `${v.toFixed(1)} °C`));
    }
  }

  // ---------- job completion CDF ----------
  function buildCdf(run, r, container, responseAxis) {
    const jobs = arr(run.jobs);
    const done = [];
    jobs.forEach((j, i) => { if (Number.isFinite(j.response_seconds)) done.push(i); });
    done.sort((a, b) => jobs[a].response_seconds - jobs[b].response_seconds);
    const n = Math.max(1, jobs.length);
    const line = done.map((i, k) => [jobs[i].response_seconds, (k + 1) / n, i]);
    const missed = line.filter((p) => jobs[p[2]].deadline_met === false);
    const withDeadline = jobs.filter((j) => j.deadline_met === true || j.deadline_met === false);
    const missedAll = withDeadline.filter((j) => j.deadline_met === false).length;
    const unfinished = jobs.length - done.length;
    const parts = [`${done.length} of ${jobs.length} jobs finished`];
    if (withDeadline.length) parts.push(`deadlines: ${withDeadline.length - missedAll} met, ${missedAll} missed`);
    if (unfinished) parts.push(`${unfinished} unfinished`);
    const jobTip = (p) => {
      const j = jobs[p.data[2]];
      const rows = [['response', fmtTime(j.response_seconds)], ['arrival', fmtTime(j.arrival_seconds)],
        ['completion', fmtTime(j.completion_seconds)], ['fraction done', `${(p.data[1] * 100).toFixed(1)} %`]];
      if (j.deadline_seconds !== undefined) rows.push(['deadline', `${fmtTime(j.deadline_seconds)} (${j.deadline_met ? 'met' : 'missed'})`]);
      return `<b>${encode(j.name ?? `job ${p.data[2]}`)}</b>${tooltipTable(rows)}`;
    };
    makeChart(`cdf-${r}`, container, {
      title: chartTitle(`${run.policy ?? `run ${r + 1}`}: job completion`, parts.join(' · ')),
      tooltip: { trigger: 'item', confine: true, className: 'report-tooltip', formatter: jobTip },
      grid: { left: 64, right: 28, top: 62, bottom: 58 },
      xAxis: Object.assign({ type: 'value', name: 'response time (s)', nameLocation: 'middle', nameGap: 26,
        splitLine: { lineStyle: { color: '#eef0f4' } } }, responseAxis),
      yAxis: { type: 'value', min: 0, max: 1, interval: 0.25, axisLabel: { formatter: (v) => `${Math.round(v * 100)} %` },
        name: 'jobs done', nameLocation: 'end', nameGap: 10, nameTextStyle: { align: 'left' }, splitLine: { lineStyle: { color: '#eef0f4' } } },
      dataZoom: [{ type: 'inside', xAxisIndex: 0, filterMode: 'none' }],
      series: [
        { type: 'line', name: 'jobs', data: line, step: 'end', showSymbol: line.length <= 60, symbolSize: 4,
          color: RUN_COLOURS[r % RUN_COLOURS.length], lineStyle: { width: 1.8 }, large: true },
        { type: 'scatter', name: 'deadline missed', data: missed, symbol: 'path://M2,0L5,3L8,0L10,2L7,5L10,8L8,10L5,7L2,10L0,8L3,5L0,2Z',
          symbolSize: 7, itemStyle: { color: '#d62728', opacity: 0.75 }, z: 4, large: missed.length > 5000 },
      ],
    });
  }

  // ---------- Pareto front ----------
  function buildPareto(pareto, container) {
    const points = arr(pareto.points);
    const all = points.map((p, i) => [p.x, p.y, i]);
    const front = all.filter((p) => points[p[2]].on_front).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    const chosen = Number.isInteger(pareto.chosen) && points[pareto.chosen] ? [all[pareto.chosen]] : [];
    const tip = (p) => {
      const point = points[p.data[2]];
      return `<b>${encode(point.label ?? `point ${p.data[2]}`)}</b>${tooltipTable([[pareto.x_label || 'x', fmtNumber(point.x)],
        [pareto.y_label || 'y', fmtNumber(point.y)], ['on the front', point.on_front ? 'yes' : 'no']])
        }${p.data[2] === pareto.chosen ? '<div class="tip-note">chosen</div>' : ''}`;
    };
    makeChart('pareto', container, {
      title: chartTitle('Pareto front', `${points.length} configurations, ${front.length} on the front${chosen.length ? ', chosen one ringed' : ''}`),
      legend: { top: 8, right: 12, textStyle: { fontSize: 11 } },
      tooltip: { trigger: 'item', confine: true, className: 'report-tooltip', formatter: tip },
      grid: { left: 70, right: 36, top: 62, bottom: 58 },
      xAxis: { type: 'value', scale: true, name: pareto.x_label || 'x', nameLocation: 'middle', nameGap: 26, splitLine: { lineStyle: { color: '#eef0f4' } } },
      yAxis: { type: 'value', scale: true, name: pareto.y_label || 'y', nameLocation: 'end', nameGap: 10, nameTextStyle: { align: 'left' },
        splitLine: { lineStyle: { color: '#eef0f4' } } },
      series: [
        { type: 'scatter', name: 'configurations', data: all, symbolSize: 8, color: '#9aa5b8', z: 2 },
        { type: 'line', name: 'front', data: front, symbolSize: 7, color: '#4e79a7', lineStyle: { width: 2 }, z: 3 },
        { type: 'scatter', name: 'chosen', data: chosen, symbol: 'circle', symbolSize: 18, z: 4,
          itemStyle: { color: 'rgba(225, 87, 89, 0.15)', borderColor: '#e15759', borderWidth: 2.5 } },
      ],
    });
  }

  // ---------- layout ----------
  function section(title, note) {
    const s = el('section', { class: 'report-section' }, el('h2', {}, title));
    if (note) s.append(el('p', { class: 'note' }, note));
    return s;
  }
  function runGrid(runCount) {
    return el('div', { class: `runs runs-${Math.min(runCount, 4)}`, style: `--runs:${Math.max(1, runCount)}` });
  }

  function render(page) {
    const app = document.getElementById('app') || document.body.appendChild(el('div', { id: 'app' }));
    const runs = page.runs;
    const title = page.title ? String(page.title) : 'hetsched report';
    document.title = title;
    const header = el('header', { class: 'report-header' }, el('h1', {}, title));
    const kinds = [...new Set(runs.map((r) => r.workload_kind).filter(Boolean))];
    if (runs.length) {
      header.append(el('p', { class: 'note' }, `${runs.length} run${runs.length === 1 ? '' : 's'}: `
        + `${runs.map((r) => r.policy).join(', ')}${kinds.length ? ` · workload: ${kinds.join(', ')}` : ''}`));
    }
    app.append(header);
    if (runs.length) {
      const summary = section('Summary', runs.length > 1 ? 'The best value of each row is highlighted.' : '');
      summary.append(el('div', { class: 'table-wrap' }, summaryTable(runs)));
      app.append(summary);
    } else if (!page.pareto) {
      app.append(el('p', { class: 'note' }, 'The report holds no runs.'));
      return { firstScreen: [], later: [] };
    }

    // Runs share one time axis (and one response-time axis) unless their spans differ more than
    // fourfold, where a shared axis would squash the shorter runs.
    const comparable = (values) => values.every((v) => v > 0) && Math.max(...values) <= 4 * Math.min(...values);
    const ranges = runs.map((run) => timeRange([run]));
    const sharedRange = timeRange(runs);
    linkedGantts = comparable(ranges.map(([lo, hi]) => hi - lo));
    const responses = runs.map((run) => maxOf(arr(run.jobs).map((j) => j.response_seconds).filter(Number.isFinite)));
    const sharedResponses = comparable(responses);
    const scales = { queue: 0, power: 0 };
    for (const run of runs) {
      const s = run.series || {};
      scales.queue = Math.max(scales.queue, maxOf(arr(s.queue && s.queue.tasks)));
      scales.power = Math.max(scales.power, maxOf(arr(s.power && s.power.watts)),
        (s.power && s.power.cap_watts) || 0, (s.power && s.power.node_cap_watts) || 0);
    }
    // A shared y scale only where there is data; ECharts' own nice rounding otherwise.
    scales.queue = niceAxis(scales.queue, true);
    scales.power = niceAxis(scales.power * 1.02);

    const kindsOfCharts = [['gantt', 'Schedule', 'One row per device, grouped by node, then the node\'s network lanes. Tasks are coloured by job; grey blocks merge tasks of several jobs shorter than a pixel.'],
      ['utilization', 'Utilisation', ''], ['queue', 'Ready queue', '']];
    // Job streams model no power: the section is there only when some run has a draw.
    const hasPower = (run) => arr(run.series && run.series.power && run.series.power.watts).length > 0;
    if (runs.some(hasPower)) kindsOfCharts.push(['power', 'Power', '']);
    const anyTemperature = runs.some((r) => r.series && r.series.temperature);
    if (anyTemperature) kindsOfCharts.push(['temperature', 'Temperature', '']);
    kindsOfCharts.push(['cdf', 'Job completion', 'Fraction of all jobs finished within each response time; crosses mark jobs that missed their deadline.']);
    const boxes = runs.map(() => ({}));
    for (const [kind, heading, note] of runs.length ? kindsOfCharts : []) {
      const sec = section(heading, note);
      const grid = runGrid(runs.length);
      runs.forEach((run, r) => {
        if (kind === 'temperature' && !(run.series && run.series.temperature)) {
          grid.append(el('div', { class: 'chart chart-empty' }, `${run.policy ?? `run ${r + 1}`}: no temperature model in this run`));
          return;
        }
        if (kind === 'power' && !hasPower(run)) {
          grid.append(el('div', { class: 'chart chart-empty' }, `${run.policy ?? `run ${r + 1}`}: no power model in this run`));
          return;
        }
        boxes[r][kind] = chartBox(`${kind}-${r}`, `chart-${kind}`);
        grid.append(boxes[r][kind]);
      });
      sec.append(grid);
      app.append(sec);
    }
    let paretoBox = null;
    if (page.pareto) {
      const sec = section('Pareto front', `${page.pareto.x_label || 'x'} against ${page.pareto.y_label || 'y'}; lower is better on both.`);
      paretoBox = chartBox('pareto', 'chart-pareto');
      sec.append(paretoBox);
      app.append(sec);
    }
    // Charts are created once the layout is in place, so that each knows its size: those of
    // the first screen now, the others after they are drawn (see the top of this file).
    const builds = [];
    runs.forEach((run, r) => {
      const range = linkedGantts ? sharedRange : ranges[r];
      builds.push([boxes[r].gantt, () => buildGantt(run, r, boxes[r].gantt, range)]);
      builds.push([boxes[r].utilization, () => buildSeriesCharts(run, r, boxes[r], range, scales)]);
      builds.push([boxes[r].cdf, () => buildCdf(run, r, boxes[r].cdf,
        niceAxis(sharedResponses ? Math.max(...responses) : responses[r]))]);
    });
    if (paretoBox) builds.push([paretoBox, () => buildPareto(page.pareto, paretoBox)]);
    const onFirstScreen = ([box]) => box && box.getBoundingClientRect().top < window.innerHeight;
    const later = builds.filter((b) => !onFirstScreen(b));
    for (const [, build] of builds.filter(onFirstScreen)) build();
    return { firstScreen: firstRenders.slice(), later: later.map(([, build]) => build) };
  }

  // Builds the remaining chart groups one task at a time; resolves once all have been drawn.
  function buildLater(later) {
    return new Promise((resolve) => {
      const next = () => {
        if (!later.length) { Promise.all(firstRenders).then(resolve); return; }
        later.shift()();
        setTimeout(next, 0);
      };
      next();
    });
  }

  function showError(message) {
    const app = document.getElementById('app') || document.body;
    app.textContent = '';
    app.append(el('div', { class: 'report-error', role: 'alert' }, el('h1', {}, 'This report cannot be shown'), el('p', {}, message)));
    document.documentElement.dataset.renderError = message;
  }

  window.hetschedReport = {
    charts,
    ganttDrawnItems: (r) => { const g = gantts.find((x) => x.index === r); return g ? g.blocks.length : 0; },
    ganttsLinked: () => linkedGantts,
    ganttWindow: (r) => { const g = gantts.find((x) => x.index === r); return g ? g.window.slice() : null; },
  };
  let stages;
  try {
    if (typeof echarts === 'undefined') throw new Error('the chart library did not load');
    stages = render(readPage());
  } catch (e) {
    showError(e && e.message ? e.message : String(e));
    return;
  }
  Promise.all(stages.firstScreen).then(() => {
    window.hetschedFirstRenderSeconds = performance.now() / 1000;
    document.documentElement.dataset.firstRender = '1';
    return buildLater(stages.later);
  }).then(() => {
    window.hetschedRenderSeconds = performance.now() / 1000;
    document.documentElement.dataset.rendered = '1';
  }).catch((e) => showError(e && e.message ? e.message : String(e)));
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const [id, chart] of Object.entries(charts)) if (!id.startsWith('gantt-')) chart.resize();
      for (const g of gantts) g.resize();
    }, 100);
  });
})();
