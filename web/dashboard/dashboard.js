// The hetsched dashboard: served by `hetsched serve` at / (see docs/service.md). The page
// itself holds no data; this script asks for the bearer token, keeps it in sessionStorage
// (never in the URL or a cookie) and sends it as "Authorization: Bearer" on every call.
// Live updates come from GET /v1/events (server-sent events), read with fetch() and a
// ReadableStream because EventSource cannot send headers.
//
// Every text that comes from the service (job, task and node names, reasons, errors) is put
// in the page as text: elements are built with createElement/textContent, never innerHTML,
// and the charts' tooltips escape what they show.
'use strict';

(() => {
  const TOKEN_KEY = 'hetsched.token';
  const MAX_JOB_ROWS = 500;        // rows of the jobs table (newest first)
  const MAX_PLACEMENT_JOBS = 40;   // running jobs whose placements the cluster view reads
  const MAX_LOG = 200;             // lines of the event log
  const CHART_WINDOW_MS = 15 * 60 * 1000;
  const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

  const $ = (id) => document.getElementById(id);

  // An element with text and children; props: class, text, title, dataset, or attributes.
  function el(tag, props, ...children) {
    const e = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (value === undefined || value === null) continue;
      if (key === 'class') e.className = value;
      else if (key === 'text') e.textContent = String(value);
      else if (key === 'title') e.title = String(value);
      else if (key === 'dataset') Object.assign(e.dataset, value);
      else e.setAttribute(key, String(value));
    }
    for (const child of children) if (child !== null && child !== undefined) e.append(child);
    return e;
  }

  function stateBadge(value, extraClass) {
    return el('span', { class: `state state-${value}${extraClass ? ' ' + extraClass : ''}`, text: value });
  }

  function formatTime(unixSeconds) {
    if (typeof unixSeconds !== 'number') return '';
    return new Date(unixSeconds * 1000).toLocaleTimeString();
  }

  function formatSeconds(value) {
    return typeof value === 'number' ? value.toFixed(2) : '';
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({
      '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;',
    })[c]);
  }

  function delay(ms) {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  // ---- State ----

  const state = {
    token: null,
    generation: 0,            // grows at each login and logout: late answers are dropped
    stream: null,             // the AbortController of the open event stream
    jobs: new Map(),          // id -> summary (GET /v1/jobs, then job events)
    nodes: [],                // GET /v1/nodes
    placements: new Map(),    // device name -> {jobId, jobName, task, node}
    placementsCut: 0,         // running jobs left out of the placements
    metrics: null,
    detailId: null,
    detail: null,
    series: { running: [], queued: [], tasks: [], busy: [] },
    metricsChart: null,
    detailChart: null,
  };

  class Unauthorized extends Error {}

  // One API call with the token; the answer's status and JSON body (null when none).
  async function api(method, path, body) {
    const generation = state.generation;
    const headers = { Authorization: `Bearer ${state.token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/yaml';
    const response = await fetch(path, {
      method, headers, body, cache: 'no-store', credentials: 'omit', redirect: 'follow',
    });
    let json = null;
    try {
      json = await response.json();
    } catch {
      json = null;
    }
    if (generation !== state.generation) throw new Error('signed out meanwhile');
    if (response.status === 401) throw new Unauthorized('the server refused the token');
    return { status: response.status, ok: response.ok, json };
  }

  function errorText(answer) {
    const json = answer && answer.json;
    if (json && typeof json.error === 'string') {
      let where = '';
      if (json.field) where += ` (field ${json.field}`;
      if (json.line) where += `, line ${json.line}`;
      if (json.column) where += `, column ${json.column}`;
      if (where) where += ')';
      return `${json.error}${where}`;
    }
    return `the server answered ${answer ? answer.status : 'nothing'}`;
  }

  // Errors of background work: a refused token signs out, the rest shows in the status.
  function backgroundError(error) {
    if (error instanceof Unauthorized) {
      logout('The server no longer accepts this token (401 Unauthorized). Sign in again.');
    } else if (state.token) {
      setStatus('error', 'request failed');
    }
  }

  // Runs fn at most once at a time and at most every minGap ms; calls made meanwhile
  // are folded into one more run.
  function coalesced(fn, minGap) {
    let running = false;
    let again = false;
    let last = 0;
    const run = async () => {
      if (running) {
        again = true;
        return;
      }
      running = true;
      try {
        const wait = last + minGap - Date.now();
        if (wait > 0) await delay(wait);
        last = Date.now();
        if (state.token) await fn();
      } catch (error) {
        backgroundError(error);
      } finally {
        running = false;
        if (again && state.token) {
          again = false;
          run();
        }
        again = false;
      }
    };
    return run;
  }

  // ---- Sign in and out ----

  function setStatus(kind, text) {
    const status = $('connection-status');
    status.className = `status status-${kind}`;
    status.textContent = text || { live: 'live', connecting: 'connecting…', offline: 'signed out', error: 'error' }[kind];
  }

  function showLoginError(message) {
    const error = $('login-error');
    error.textContent = message;
    error.hidden = !message;
  }

  async function login(token, remembered) {
    const generation = ++state.generation;
    state.token = token;
    $('login-button').disabled = true;
    showLoginError('');
    let answer;
    try {
      answer = await api('GET', '/v1/nodes');
    } catch (error) {
      if (generation !== state.generation) return;
      state.token = null;
      $('login-button').disabled = false;
      if (error instanceof Unauthorized) {
        sessionStorage.removeItem(TOKEN_KEY);
        showLoginError(remembered
          ? 'The saved token is no longer accepted (401 Unauthorized). Give the current one.'
          : 'Wrong token: the server answered 401 Unauthorized.');
      } else {
        showLoginError('The server could not be reached.');
      }
      return;
    }
    $('login-button').disabled = false;
    if (!answer.ok) {
      state.token = null;
      showLoginError(`Sign-in failed: ${errorText(answer)}`);
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    $('token').value = '';
    $('login').hidden = true;
    $('main').hidden = false;
    $('logout').hidden = false;
    applyNodes(answer.json);
    setupCharts();
    refreshJobs();
    runEventStream(generation);
  }

  // Forgets the token and every piece of data the page showed.
  function logout(message) {
    state.generation++;
    state.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    if (state.stream) state.stream.abort();
    state.stream = null;
    state.jobs.clear();
    state.nodes = [];
    state.placements = new Map();
    state.metrics = null;
    state.detailId = null;
    state.detail = null;
    for (const key of Object.keys(state.series)) state.series[key] = [];
    if (state.metricsChart) state.metricsChart.dispose();
    if (state.detailChart) state.detailChart.dispose();
    state.metricsChart = null;
    state.detailChart = null;
    for (const id of ['nodes', 'event-log', 'detail-facts', 'detail-history']) $(id).replaceChildren();
    for (const id of ['jobs-table', 'queue-table', 'detail-tasks']) $(id).tBodies[0].replaceChildren();
    for (const id of ['submit-result', 'action-result', 'engine']) $(id).textContent = '';
    for (const card of document.querySelectorAll('.card-value')) card.textContent = '–';
    $('job-detail').hidden = true;
    $('main').hidden = true;
    $('logout').hidden = true;
    $('engine').hidden = true;
    $('login').hidden = false;
    showLoginError(message || '');
    setStatus('offline');
    $('token').focus();
  }

  // ---- The event stream ----

  async function runEventStream(generation) {
    let backoff = 1000;
    while (generation === state.generation) {
      const controller = new AbortController();
      state.stream = controller;
      setStatus('connecting');
      try {
        const response = await fetch('/v1/events', {
          headers: { Authorization: `Bearer ${state.token}`, Accept: 'text/event-stream' },
          cache: 'no-store', credentials: 'omit', signal: controller.signal,
        });
        if (generation !== state.generation) return;
        if (response.status === 401) {
          logout('The server no longer accepts this token (401 Unauthorized). Sign in again.');
          return;
        }
        if (response.status === 503) {
          if (response.body) await response.body.cancel();
          setStatus('error', 'too many dashboards open; retrying');
          await delay(5000);
          continue;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        backoff = 1000;
        await readEvents(response.body, generation);
      } catch {
        // A network error, or the stream was aborted at sign-out: retried below, or ended.
      }
      if (generation !== state.generation) return;
      setStatus('connecting', 'reconnecting…');
      await delay(backoff);
      backoff = Math.min(2 * backoff, 15000);
    }
  }

  // Reads text/event-stream framing: fields up to a blank line make one event.
  async function readEvents(body, generation) {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let type = '';
    let data = [];
    for (;;) {
      const { value, done } = await reader.read();
      if (done || generation !== state.generation) return;
      buffer += value;
      let newline;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        let line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        if (line.endsWith('\r')) line = line.slice(0, -1);
        if (line === '') {
          if (data.length > 0) dispatch(type || 'message', data.join('\n'));
          type = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) {
          setStatus('live');  // a keep-alive
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let fieldValue = colon < 0 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (field === 'event') type = fieldValue;
        else if (field === 'data') data.push(fieldValue);
      }
    }
  }

  function dispatch(type, text) {
    let data;
    try {
      data = JSON.parse(text);
    } catch {
      return;
    }
    setStatus('live');
    switch (type) {
      case 'snapshot':
        if (typeof data.engine === 'string') {
          $('engine').textContent = `engine: ${data.engine}`;
          $('engine').hidden = false;
        }
        applyMetrics(data.metrics);
        refreshJobs();
        refreshNodes();
        break;
      case 'job':
        applyJobEvent(data);
        break;
      case 'nodes':
        logLine(`nodes: ${data.nodes.map((n) => `${n.name} ${n.state}`).join(', ')}`);
        refreshNodes();
        break;
      case 'metrics':
        applyMetrics(data);
        refreshPlacements();
        break;
      case 'refresh':
        refreshJobs();
        refreshNodes();
        break;
      default:
        break;
    }
  }

  function applyJobEvent(job) {
    state.jobs.set(job.id, {
      id: job.id, name: job.name, policy: job.policy, state: job.state,
      tasks: job.tasks, completed_tasks: job.completed_tasks,
    });
    if (job.previous !== job.state) {
      const change = job.previous ? `${job.previous} → ${job.state}` : `submitted (${job.state})`;
      logLine(`job ${job.id} `, job.name, ` ${change}`);
    }
    renderJobsSoon();
    refreshPlacements();
    if (state.detailId === job.id) refreshDetail();
  }

  // ---- Reading the API ----

  const refreshJobs = coalesced(async () => {
    const answer = await api('GET', '/v1/jobs');
    if (!answer.ok) return;
    state.jobs = new Map(answer.json.jobs.map((j) => [j.id, j]));
    renderJobs();
    refreshPlacements();
  }, 250);

  const refreshNodes = coalesced(async () => {
    const answer = await api('GET', '/v1/nodes');
    if (answer.ok) applyNodes(answer.json);
  }, 250);

  // What runs where: the placed tasks of the newest running jobs.
  const refreshPlacements = coalesced(async () => {
    const running = [...state.jobs.values()].filter((j) => j.state === 'running')
      .sort((a, b) => b.id - a.id);
    const read = running.slice(0, MAX_PLACEMENT_JOBS);
    const answers = await Promise.all(read.map((j) => api('GET', `/v1/jobs/${j.id}`)));
    const placements = new Map();
    for (const answer of answers) {
      if (!answer.ok) continue;
      const job = answer.json;
      for (const task of job.tasks) {
        if (task.state !== 'launched' && task.state !== 'running') continue;
        const devices = task.gang_devices && task.gang_devices.length ? task.gang_devices : [task.device];
        for (const device of devices) {
          if (device) placements.set(device, { jobId: job.id, jobName: job.name, task: task.name, node: task.node });
        }
      }
    }
    state.placements = placements;
    state.placementsCut = running.length - read.length;
    renderNodes();
  }, 400);

  const refreshDetail = coalesced(async () => {
    const id = state.detailId;
    if (id === null) return;
    const answer = await api('GET', `/v1/jobs/${id}`);
    if (state.detailId !== id) return;
    if (!answer.ok) {
      $('detail-facts').replaceChildren(el('dt', { text: 'error' }), el('dd', { text: errorText(answer) }));
      return;
    }
    state.detail = answer.json;
    renderDetail();
  }, 300);

  function applyNodes(json) {
    state.nodes = Array.isArray(json.nodes) ? json.nodes : [];
    if (typeof json.engine === 'string') {
      $('engine').textContent = `engine: ${json.engine}`;
      $('engine').hidden = false;
    }
    renderNodes();
  }

  // ---- Rendering ----

  function applyMetrics(m) {
    if (!m) return;
    state.metrics = m;
    const jobs = m.jobs || {};
    $('count-queued').textContent = jobs.queued ?? 0;
    $('count-running').textContent = jobs.running ?? 0;
    $('count-completed').textContent = jobs.completed ?? 0;
    $('count-failed').textContent = jobs.failed ?? 0;
    $('count-cancelled').textContent = jobs.cancelled ?? 0;
    $('count-tasks').textContent = m.running_tasks ?? 0;
    $('count-queue').textContent = m.queue_length ?? 0;
    $('count-busy').textContent = `${m.busy_devices_total ?? 0} / ${m.devices_total ?? 0}`;
    addChartPoint(Date.now());
  }

  let renderJobsTimer = null;
  function renderJobsSoon() {
    if (renderJobsTimer !== null) return;
    renderJobsTimer = setTimeout(() => {
      renderJobsTimer = null;
      renderJobs();
    }, 50);
  }

  function renderJobs() {
    if (!state.token) return;
    const filter = $('job-filter').value;
    const all = [...state.jobs.values()].sort((a, b) => b.id - a.id);
    const shown = all.filter((j) => filter === 'all' || (filter === 'ended') === TERMINAL.has(j.state));
    const rows = shown.slice(0, MAX_JOB_ROWS).map((job) => {
      const fraction = job.tasks > 0 ? job.completed_tasks / job.tasks : 0;
      const bar = el('span', { class: 'progress' }, el('span'));
      bar.firstChild.style.width = `${Math.round(100 * fraction)}%`;
      const actions = el('td', { class: 'actions' },
        el('button', { type: 'button', class: 'secondary show-job', text: 'Details', dataset: { jobId: job.id } }));
      if (!TERMINAL.has(job.state)) {
        actions.append(el('button', { type: 'button', class: 'danger cancel-job', text: 'Cancel', dataset: { jobId: job.id } }));
      }
      return el('tr', { dataset: { jobId: job.id, state: job.state }, class: job.id === state.detailId ? 'selected' : null },
        el('td', { text: job.id }),
        el('td', { class: 'name job-name', text: job.name, title: job.name }),
        el('td', { text: job.policy }),
        el('td', null, stateBadge(job.state, 'job-state')),
        el('td', null, bar, `${job.completed_tasks}/${job.tasks}`),
        actions);
    });
    if (shown.length > MAX_JOB_ROWS) {
      rows.push(el('tr', null, el('td', { colspan: 6, class: 'hint', text: `${shown.length - MAX_JOB_ROWS} older jobs not shown` })));
    }
    $('jobs-table').tBodies[0].replaceChildren(...rows);
    $('jobs-empty').hidden = all.length > 0;

    const queued = all.filter((j) => j.state === 'queued').sort((a, b) => a.id - b.id);
    $('queue-table').tBodies[0].replaceChildren(...queued.slice(0, MAX_JOB_ROWS).map((job) =>
      el('tr', { dataset: { jobId: job.id } },
        el('td', { text: job.id }),
        el('td', { class: 'name', text: job.name, title: job.name }),
        el('td', { text: job.policy }),
        el('td', { text: job.tasks }))));
    $('queue-empty').hidden = queued.length > 0;
  }

  function renderNodes() {
    if (!state.token) return;
    const cards = state.nodes.map((node) => {
      const card = el('div', { class: 'node', dataset: { node: node.name } },
        el('div', { class: 'node-head' },
          el('span', { class: 'node-name', text: node.name, title: node.name }),
          stateBadge(node.state)));
      // Device names are "<node>/<model>#<i>", i counting the node's devices in order.
      let index = 0;
      for (const group of node.devices || []) {
        const slots = el('div', { class: 'slots' });
        for (let i = 0; i < group.count; i++, index++) {
          const device = `${node.name}/${group.model}#${index}`;
          const placed = state.placements.get(device);
          const slot = el('span', { class: placed ? 'slot busy' : 'slot', dataset: { device } });
          slot.title = placed ? `${device}: job ${placed.jobId} ${placed.jobName}, task ${placed.task}` : `${device}: idle`;
          slots.append(slot);
        }
        card.append(el('div', { class: 'node-group', text: `${group.kind} · ${group.model} × ${group.count}` }), slots);
      }
      const running = [...state.placements.entries()].filter(([, p]) => p.node === node.name);
      if (running.length > 0) {
        const list = el('ul', { class: 'node-tasks' });
        const seen = new Set();
        for (const [, p] of running) {
          const key = `${p.jobId}/${p.task}`;
          if (seen.has(key)) continue;
          seen.add(key);
          list.append(el('li', { title: `${p.jobName} / ${p.task}` }, `job ${p.jobId} `, el('b', { text: p.jobName }), ` · ${p.task}`));
        }
        card.append(list);
      }
      return card;
    });
    if (state.placementsCut > 0) {
      cards.push(el('p', { class: 'hint', text: `placements of ${state.placementsCut} more running jobs not shown` }));
    }
    $('nodes').replaceChildren(...cards);
  }

  function renderDetail() {
    const job = state.detail;
    if (!job) return;
    $('job-detail').hidden = false;
    $('detail-title').textContent = `Job ${job.id}`;
    const facts = [
      ['name', job.name], ['kind', job.kind], ['policy', job.policy], ['state', job.state],
      ['submitted', formatTime(job.submitted_at)],
    ];
    if (typeof job.finished_at === 'number') facts.push(['finished', formatTime(job.finished_at)]);
    if (job.reason) facts.push(['reason', job.reason]);
    facts.push(['tasks', String(job.tasks.length)]);
    $('detail-facts').replaceChildren(...facts.flatMap(([k, v]) => [
      el('dt', { text: k }),
      k === 'state' ? el('dd', null, stateBadge(v, 'detail-state')) : el('dd', { class: `fact-${k}`, text: v }),
    ]));
    $('detail-tasks').tBodies[0].replaceChildren(...job.tasks.slice(0, 1000).map((task) =>
      el('tr', null,
        el('td', { class: 'name', text: task.name, title: task.name }),
        el('td', null, stateBadge(task.state)),
        el('td', { text: task.gang_devices && task.gang_devices.length > 1 ? task.gang_devices.join(', ') : task.device }),
        el('td', { text: task.node }),
        el('td', { text: formatSeconds(task.started_seconds ?? task.planned_start_seconds) }),
        el('td', { text: formatSeconds(task.finished_seconds) }),
        el('td', { text: formatSeconds(task.expected_seconds) }),
        el('td', { text: task.attempts }))));
    const history = [];
    for (const task of job.tasks) for (const h of task.history || []) history.push({ task: task.name, ...h });
    history.sort((a, b) => a.at - b.at);
    $('detail-history').replaceChildren(...history.slice(-300).map((h) =>
      el('li', null,
        el('span', { class: 'time', text: formatTime(h.at) }),
        el('b', { text: h.task }), ` ${h.event}`,
        h.device ? ` on ${h.device}` : '',
        h.detail ? ` — ${h.detail}` : '')));
    renderDetailChart(job);
    for (const row of $('jobs-table').tBodies[0].rows) {
      row.classList.toggle('selected', Number(row.dataset.jobId) === job.id);
    }
  }

  function showJob(id) {
    state.detailId = id;
    state.detail = null;
    $('detail-facts').replaceChildren();
    $('detail-tasks').tBodies[0].replaceChildren();
    $('detail-history').replaceChildren();
    $('detail-title').textContent = `Job ${id}`;
    $('job-detail').hidden = false;
    refreshDetail();
  }

  function logLine(...parts) {
    const line = el('li', null, el('span', { class: 'time', text: new Date().toLocaleTimeString() }));
    parts.forEach((part, i) => line.append(i === 1 ? el('b', { text: part }) : part));
    const log = $('event-log');
    log.prepend(line);
    while (log.childElementCount > MAX_LOG) log.lastElementChild.remove();
  }

  // ---- Charts ----

  const SERIES = [
    ['running', 'running jobs', (m) => m.jobs?.running ?? 0],
    ['queued', 'queued jobs', (m) => m.jobs?.queued ?? 0],
    ['tasks', 'running tasks', (m) => m.running_tasks ?? 0],
    ['busy', 'busy devices', (m) => m.busy_devices_total ?? 0],
  ];

  // Axis tooltips built from escaped text only.
  function axisTooltip(params) {
    const items = Array.isArray(params) ? params : [params];
    if (items.length === 0) return '';
    const when = new Date(items[0].value[0]).toLocaleTimeString();
    return [escapeHtml(when), ...items.map((p) =>
      `${p.marker || ''}${escapeHtml(p.seriesName)}: <b>${escapeHtml(p.value[1])}</b>`)].join('<br>');
  }

  function setupCharts() {
    if (typeof echarts === 'undefined' || state.metricsChart) return;
    state.metricsChart = echarts.init($('metrics-chart'));
    state.metricsChart.setOption({
      animation: false,
      grid: { left: 44, right: 16, top: 36, bottom: 28 },
      legend: { top: 0 },
      tooltip: { trigger: 'axis', formatter: axisTooltip },
      xAxis: { type: 'time' },
      yAxis: { type: 'value', minInterval: 1 },
      series: SERIES.map(([, name]) => ({ name, type: 'line', step: 'end', showSymbol: false, data: [] })),
    });
    addChartPoint(Date.now());
  }

  function addChartPoint(now) {
    if (!state.metrics) return;
    for (const [key, , value] of SERIES) {
      const points = state.series[key];
      points.push([now, value(state.metrics)]);
      while (points.length > 2 && points[0][0] < now - CHART_WINDOW_MS) points.shift();
    }
    if (state.metricsChart) {
      state.metricsChart.setOption({ series: SERIES.map(([key]) => ({ data: state.series[key] })) });
    }
  }

  function renderDetailChart(job) {
    const tasks = job.tasks.filter((t) => typeof t.started_seconds === 'number').slice(0, 200);
    const box = $('detail-chart');
    box.hidden = tasks.length === 0 || typeof echarts === 'undefined';
    if (box.hidden) return;
    if (!state.detailChart) state.detailChart = echarts.init(box);
    else state.detailChart.resize();
    const names = tasks.map((t, i) => `${i + 1}. ${t.name}`);
    const data = tasks.map((t, i) => {
      const end = typeof t.finished_seconds === 'number' ? t.finished_seconds : t.started_seconds + (t.expected_seconds || 0);
      return { value: [i, t.started_seconds, end], task: t.name, device: t.device, state: t.state };
    });
    state.detailChart.setOption({
      animation: false,
      grid: { left: 120, right: 16, top: 10, bottom: 28 },
      tooltip: {
        formatter: (p) => `${escapeHtml(p.data.task)}<br>${escapeHtml(p.data.device)} · ${escapeHtml(p.data.state)}<br>` +
          `${escapeHtml(p.data.value[1].toFixed(2))} s → ${escapeHtml(p.data.value[2].toFixed(2))} s`,
      },
      xAxis: { type: 'value', name: 'model s', scale: true },
      yAxis: { type: 'category', data: names, inverse: true, axisLabel: { width: 110, overflow: 'truncate' } },
      series: [{
        type: 'custom',
        encode: { x: [1, 2], y: 0 },
        data,
        renderItem: (params, api) => {
          const start = api.coord([api.value(1), api.value(0)]);
          const end = api.coord([api.value(2), api.value(0)]);
          const height = api.size([0, 1])[1] * 0.6;
          return {
            type: 'rect',
            shape: { x: start[0], y: start[1] - height / 2, width: Math.max(1, end[0] - start[0]), height },
            style: { fill: TERMINAL.has(data[params.dataIndex].state) ? '#1e8a4c' : '#1769c2' },
          };
        },
      }],
    }, true);
  }

  // The chart's lines reach the present even when nothing changes.
  setInterval(() => {
    const points = state.series.running;
    if (state.token && points.length > 0 && Date.now() - points[points.length - 1][0] > 4000) {
      addChartPoint(Date.now());
    }
  }, 5000);

  window.addEventListener('resize', () => {
    if (state.metricsChart) state.metricsChart.resize();
    if (state.detailChart) state.detailChart.resize();
  });

  // ---- Actions ----

  $('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const token = $('token').value.trim();
    if (token) login(token, false);
  });

  $('logout').addEventListener('click', () => logout(''));

  $('job-filter').addEventListener('change', renderJobs);

  $('detail-close').addEventListener('click', () => {
    state.detailId = null;
    state.detail = null;
    $('job-detail').hidden = true;
    for (const row of $('jobs-table').tBodies[0].rows) row.classList.remove('selected');
  });

  $('submit-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const result = $('submit-result');
    const text = $('workload').value;
    if (!text.trim()) {
      result.className = 'result bad';
      result.textContent = 'Give a workload first.';
      return;
    }
    const policy = $('policy').value.trim();
    const path = policy ? `/v1/jobs?policy=${encodeURIComponent(policy)}` : '/v1/jobs';
    $('submit-button').disabled = true;
    result.className = 'result';
    result.textContent = 'Submitting…';
    try {
      const answer = await api('POST', path, text);
      if (answer.status === 201) {
        const ids = answer.json.ids;
        result.className = 'result ok';
        result.textContent = `Submitted: job${ids.length === 1 ? '' : 's'} ${ids.join(', ')}`;
        result.dataset.ids = ids.join(',');
        refreshJobs();
      } else {
        result.className = 'result bad';
        result.textContent = `Refused: ${errorText(answer)}`;
      }
    } catch (error) {
      if (error instanceof Unauthorized) return backgroundError(error);
      result.className = 'result bad';
      result.textContent = 'The server could not be reached.';
    } finally {
      $('submit-button').disabled = false;
    }
  });

  $('jobs-table').addEventListener('click', async (event) => {
    const button = event.target.closest('button');
    if (!button) return;
    const id = Number(button.dataset.jobId);
    if (button.classList.contains('show-job')) {
      showJob(id);
      return;
    }
    if (!button.classList.contains('cancel-job')) return;
    button.disabled = true;
    const result = $('action-result');
    try {
      const answer = await api('DELETE', `/v1/jobs/${id}`);
      result.className = answer.status === 202 ? 'result ok' : 'result bad';
      result.textContent = answer.status === 202
        ? `Cancelling job ${id}.`
        : `Job ${id} was not cancelled: ${errorText(answer)}`;
    } catch (error) {
      if (error instanceof Unauthorized) return backgroundError(error);
      result.className = 'result bad';
      result.textContent = 'The server could not be reached.';
      button.disabled = false;
    }
  });

  // ---- Start ----

  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved) {
    login(saved, true);
  } else {
    setStatus('offline');
  }
})();
