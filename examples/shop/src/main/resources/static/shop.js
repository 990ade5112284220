// The shop's page: plain JavaScript, no build step. Credentials stay in sessionStorage and go out
// as HTTP Basic on every call. Every order and payment carries an Idempotency-Key. The plain
// buttons send one intent (this order, this payment) under one key, made when the button is drawn
// and kept until a final answer, so a double click, a reload or a retry repeats the request rather
// than making a second one. The demonstration buttons repeat a request on purpose, with its key.
'use strict';

const $ = (id) => document.getElementById(id);
const store = window.sessionStorage;

function newKey() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return 'k-' + Date.now().toString(36) + '-' + Math.random().toString(36).slice(2);
}

function auth() {
  return 'Basic ' + btoa(store.getItem('user') + ':' + store.getItem('password'));
}

async function call(method, path, body, key) {
  const headers = { 'Authorization': auth(), 'X-Requested-With': 'fetch' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (key) headers['Idempotency-Key'] = key;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch (e) { json = { raw: text }; }
  return { status: response.status, replayed: response.headers.get('Idempotent-Replayed') === 'true', json };
}

// What the answer says of the record under the key, in the words of the protocol: a replay, the
// first request still running, the key used for another request, or an answer not kept.
function recordState(answer) {
  const type = (answer.json && typeof answer.json.type === 'string') ? answer.json.type : '';
  if (answer.replayed) return 'replayed: the stored answer, no new effect';
  if (type.endsWith(':in-progress')) return 'in progress: the first request with this key still runs';
  if (type.endsWith(':key-reuse')) return 'refused: the key was used for another request';
  if (answer.status === 'no answer') return 'unknown: send it again with the same key';
  if (answer.status >= 500 || answer.status === 429) return 'not stored: the key is free, send it again';
  if (!isFinal(answer)) return 'not final: send it again with the same key';
  if (answer.status >= 400 && answer.status < 409) return 'refused before it ran: nothing stored';
  if (answer.status >= 400) return 'refused, and the refusal is kept under the key: a repeat gets it again';
  return 'done once: the answer is kept under the key, a repeat gets it without doing it again';
}

// What the answer is about, as a shopper says it: the order placed, the payment and its order.
function subject(answer) {
  const json = answer.json || {};
  if (typeof json.status === 'string' && json.paymentNo) {
    return json.status + ', payment ' + json.paymentNo + (json.orderNo ? ' of order ' + json.orderNo : '');
  }
  if (json.orderNo) return 'order ' + json.orderNo + (json.status ? ' ' + json.status : '');
  return problemText(answer) || json.type || '';
}

function problemText(answer) {
  const json = answer.json;
  if (!json || typeof json.title !== 'string') return '';
  return json.title + (json.detail ? ': ' + json.detail : '');
}

// The request log, kept in sessionStorage so that the proof survives a reload: the newest
// LOG_KEPT lines, drawn again when the page starts.
const LOG_KEPT = 60;

function log(method, path, key, answer, note) {
  const text = `${method} ${path} key=${key ? key.slice(0, 8) : '-'} → ${answer.status} ${subject(answer)}`
    + (note ? `  [${note}]` : '')
    + `  (${recordState(answer)})`;
  let className = '';
  if (answer.replayed) className = 'replayed';
  else if (answer.status === 'no answer' || answer.status >= 400) className = 'failed';
  const kept = JSON.parse(store.getItem('log') || '[]');
  kept.unshift({ text, className });
  store.setItem('log', JSON.stringify(kept.slice(0, LOG_KEPT)));
  drawLogLine({ text, className }, true);
}

function drawLogLine(line, newest) {
  const item = document.createElement('li');
  item.textContent = line.text;
  item.className = line.className;
  if (newest) $('log').prepend(item); else $('log').appendChild(item);
}

function drawLog() {
  $('log').innerHTML = '';
  for (const line of JSON.parse(store.getItem('log') || '[]')) drawLogLine(line, false);
}

// The last problem, where the person looks: above the buttons.
function notice(text) {
  $('notice').textContent = text || '';
}

// Requests sent but not settled yet, by key, with the user who sent them, in sessionStorage:
// they survive a reload (the user's or the reload button's), after which each of the logged-in
// user's is sent again with its own key. Only a final answer removes one. The last request is kept
// too, for the retry button.
function pending() {
  return JSON.parse(store.getItem('pending') || '{}');
}

function setPending(key, request) {
  const all = pending();
  if (request) all[key] = request; else delete all[key];
  store.setItem('pending', JSON.stringify(all));
}

// Final: a success, or a refusal that sending the request again would not change. Not final: the
// key's first request still running or the order's payment still open (409 *in-progress), too
// many requests (429), a server error (5xx, a busy wallet's 503); nor a network error, which
// throws before there is an answer.
function isFinal(answer) {
  if (answer.status === 409) {
    return !(answer.json && typeof answer.json.type === 'string' && answer.json.type.endsWith('in-progress'));
  }
  return answer.status < 500 && answer.status !== 429;
}

async function send(method, path, body, key, note, intent) {
  setPending(key, { path, body, user: store.getItem('user'), intent });
  store.setItem('last', JSON.stringify({ path, body, key }));
  let answer;
  try {
    answer = await call(method, path, body, key);
  } catch (e) {
    log(method, path, key, { status: 'no answer', json: { type: String(e) } }, note);
    notice('no answer (' + e + '): the request may have been done; it is sent again with its key');
    throw e;
  }
  if (isFinal(answer)) {
    setPending(key, null);
    if (intent) settleIntent(intent, answer);
  }
  log(method, path, key, answer, note);
  notice(answer.status >= 400 ? problemText(answer) || 'error ' + answer.status : '');
  return answer;
}

// Intents, by name ('order', 'pay:<order>:<method>'): one key each, with the body it was first
// sent with. Drawing a button makes its key; a click sends the body under it. A click with another
// body after the key went out (the quantities changed after a failed try) is another intent, with
// a new key. A final answer ends the intent, except a paid order's, which stays: a late click on
// its button replays the payment.
function intents() {
  return JSON.parse(store.getItem('intents') || '{}');
}

function saveIntents(all) {
  store.setItem('intents', JSON.stringify(all));
}

function intentKey(name) {
  const all = intents();
  if (!all[name]) {
    all[name] = { key: newKey(), body: null };
    saveIntents(all);
  }
  return all[name].key;
}

function keyFor(name, body) {
  const all = intents();
  const text = JSON.stringify(body);
  if (!all[name] || (all[name].body !== null && all[name].body !== text)) {
    all[name] = { key: newKey(), body: text };
  } else {
    all[name].body = text;
  }
  saveIntents(all);
  return all[name].key;
}

function settleIntent(name, answer) {
  const paid = name.startsWith('pay:') && answer.json && answer.json.status === 'SUCCESS';
  if (paid) return;
  const all = intents();
  delete all[name];
  saveIntents(all);
  if (name === 'order' && answer.status < 300) clearQuantities();
}

// Intents whose request this page has in flight: their buttons are disabled, and a second click
// (the other half of a double click) sends nothing.
const busy = new Set();

function drawBusy(button, name) {
  button.disabled = busy.has(name);
  button.classList.toggle('busy', busy.has(name));
}

async function act(name, path, body) {
  if (busy.has(name)) return;
  busy.add(name);
  redrawButtons();
  try {
    await send('POST', path, body, keyFor(name, body), undefined, name);
  } catch (e) {
    // logged by send; the intent keeps its key for the next click
  }
  // The button stays disabled until the page shows the answer: by then a paid order has no pay
  // buttons, so the second half of a slow double click finds nothing to send.
  try {
    await refresh();
  } finally {
    busy.delete(name);
    redrawButtons();
  }
}

function redrawButtons() {
  drawBusy($('order'), 'order');
  document.querySelectorAll('button[data-intent]').forEach((b) => drawBusy(b, b.dataset.intent));
}

// Sends the request the chosen way: once, twice at once, once more after the answer, or
// reloads the page while it is in flight (the reloaded page sends it again with its key).
async function perform(mode, path, body) {
  const key = newKey();
  if (mode === 'double') {
    await Promise.all([send('POST', path, body, key), send('POST', path, body, key)]);
  } else if (mode === 'retry') {
    await send('POST', path, body, key);
    await send('POST', path, body, key, 'network retry');
  } else if (mode === 'reload') {
    send('POST', path, body, key).catch(() => {}); // the answer is lost with the page
    window.location.reload();
    return;
  } else {
    await send('POST', path, body, key);
  }
  await refresh();
}

// Another user's requests are dropped: they would go out with this user's credentials. A request
// that fails is logged and stays pending; it does not keep the others or the page's refresh back.
async function resendPending() {
  const user = store.getItem('user');
  const mine = Object.entries(pending()).filter(([key, r]) => {
    if (r.user === user) return true;
    setPending(key, null);
    return false;
  });
  await Promise.all(mine.map(async ([key, r]) => {
    if (r.intent) busy.add(r.intent);
    try {
      await send('POST', r.path, r.body, key, 're-sent after reload', r.intent);
    } catch (e) {
      // logged by send; it stays pending
    } finally {
      if (r.intent) busy.delete(r.intent);
    }
  }));
}

// The retry button: the last request again, with its key, as a client retries a lost answer.
async function retryLast() {
  const last = store.getItem('last');
  if (!last) return;
  const { path, body, key } = JSON.parse(last);
  await send('POST', path, body, key, 'retry');
  await refresh();
}

function orderBody() {
  const items = [];
  document.querySelectorAll('#products input').forEach((input) => {
    const quantity = parseInt(input.value, 10);
    if (quantity > 0) items.push({ sku: input.dataset.sku, quantity });
  });
  return { items };
}

function clearQuantities() {
  document.querySelectorAll('#products input').forEach((input) => { input.value = '0'; });
}

function order() {
  const body = orderBody();
  if (body.items.length === 0) {
    notice('choose a quantity first');
    return;
  }
  act('order', '/api/orders', body);
}

async function refreshProducts() {
  const { json } = await call('GET', '/api/products');
  const body = $('products').querySelector('tbody');
  const kept = {};
  body.querySelectorAll('input').forEach((i) => { kept[i.dataset.sku] = i.value; });
  body.innerHTML = '';
  for (const p of json) {
    const row = body.insertRow();
    row.insertCell().textContent = p.sku;
    row.insertCell().textContent = p.name;
    row.insertCell().textContent = p.price.toFixed(2);
    row.insertCell().textContent = p.stock;
    const input = document.createElement('input');
    input.type = 'number'; input.min = '0'; input.value = kept[p.sku] || '0'; input.dataset.sku = p.sku;
    row.insertCell().appendChild(input);
  }
  intentKey('order');
}

// The orders as last drawn: an unchanged list is not drawn again, so a button is not replaced
// under the pointer of someone about to click it.
let drawnOrders = '';

async function refreshOrders() {
  const { json } = await call('GET', '/api/orders');
  const drawn = JSON.stringify(json);
  if (drawn === drawnOrders) return;
  drawnOrders = drawn;
  const body = $('orders').querySelector('tbody');
  body.innerHTML = '';
  for (const o of json) {
    const row = body.insertRow();
    row.insertCell().textContent = o.orderNo;
    row.insertCell().textContent = o.amount.toFixed(2);
    row.insertCell().textContent = o.status;
    const cell = row.insertCell();
    if (o.status !== 'CREATED') continue;
    for (const method of ['CARD', 'WALLET']) {
      const intent = `pay:${o.orderNo}:${method}`;
      intentKey(intent);
      for (const mode of ['once', 'double', 'retry', 'reload']) {
        const button = document.createElement('button');
        button.textContent = `${method} ${mode === 'once' ? '' : '(' + mode + ')'}`;
        button.className = 'small';
        button.dataset.pay = `${o.orderNo}:${method}:${mode}`;
        const path = `/api/orders/${o.orderNo}/payments`;
        if (mode === 'once') {
          button.dataset.intent = intent;
          drawBusy(button, intent);
          button.onclick = () => act(intent, path, { method });
        } else {
          button.onclick = () => perform(mode, path, { method });
        }
        cell.appendChild(button);
      }
    }
  }
  forgetIntentsOfOtherOrders(json);
}

// A paid order's intent is kept while the order is listed; one no longer listed is dropped.
function forgetIntentsOfOtherOrders(listed) {
  const numbers = new Set(listed.map((o) => o.orderNo));
  const all = intents();
  for (const name of Object.keys(all)) {
    if (name.startsWith('pay:') && !numbers.has(name.split(':')[1])) delete all[name];
  }
  saveIntents(all);
}

async function refreshWallet() {
  const { json } = await call('GET', '/api/accounts/me');
  $('who').textContent = json.username;
  $('balance').textContent = json.balance.toFixed(2);
  $('version').textContent = json.version;
}

// Role ADMIN gets the rows that break an invariant; a customer gets the names and counts only.
function brokenText(report) {
  if (report.violations) return report.violations.join('; ');
  return report.invariants
    .filter((i) => i.violations > 0)
    .map((i) => i.name + ' (' + i.violations + ')')
    .join('; ');
}

// The audit's counts as a shopper names them.
const COUNT_NAMES = {
  orders: 'orders placed',
  paidOrders: 'orders paid',
  payments: 'payments opened',
  gatewayCharges: 'card charges the bank approved',
  walletDebits: 'wallet debits',
  loyaltyEntries: 'loyalty points granted',
};

function auditRow(table, cells, bad) {
  const row = table.insertRow();
  for (const text of cells) row.insertCell().textContent = text;
  if (bad) row.className = 'bad';
}

async function refreshAudit() {
  const { json } = await call('GET', '/api/audit');
  $('audit-verdict').innerHTML = json.ok
    ? '<span class="ok">ok</span>: every invariant holds'
    : '<span class="bad">broken</span>: ' + brokenText(json);
  const invariants = $('audit-invariants').querySelector('tbody');
  invariants.innerHTML = '';
  for (const i of json.invariants) auditRow(invariants, [i.name, String(i.violations)], i.violations > 0);
  const counts = $('audit-counts').querySelector('tbody');
  counts.innerHTML = '';
  for (const [name, n] of Object.entries(json.counts || {})) auditRow(counts, [COUNT_NAMES[name] || name, String(n)]);
  auditRow(counts, ['events not delivered yet', String(json.pendingMessages)]);
  auditRow(counts, ['paid orders whose points are on their way', String(json.pendingPoints)]);
  auditRow(counts, ['wallet debits whose payment is settling', String(json.pendingDebits)]);
  const rows = $('audit-rows');
  rows.innerHTML = '';
  for (const v of json.violations || []) {
    const item = document.createElement('li');
    item.textContent = v;
    rows.appendChild(item);
  }
}

// The latest payments with their journals; drawn again only when they changed.
let drawnSteps = null;

async function refreshPaymentSteps() {
  const { json } = await call('GET', '/api/payments/steps');
  const drawn = JSON.stringify(json);
  if (drawn === drawnSteps) return;
  drawnSteps = drawn;
  const list = $('payment-steps');
  list.innerHTML = '';
  for (const p of json) {
    const item = document.createElement('li');
    item.dataset.payment = p.paymentNo;
    item.textContent = `${p.method} payment ${p.paymentNo} of order ${p.orderNo}: ${p.status}`;
    const steps = document.createElement('ol');
    for (const step of p.steps) {
      const line = document.createElement('li');
      line.textContent = step;
      if (step.includes('came back') || step.includes('stored answer')) line.className = 'replayed';
      else if (step.startsWith('stopped') || step.includes('was lost')) line.className = 'failed';
      else if (step.startsWith('the completer')) line.className = 'completer';
      steps.appendChild(line);
    }
    item.appendChild(steps);
    list.appendChild(item);
  }
}

async function refresh() {
  await Promise.all([refreshProducts(), refreshOrders(), refreshWallet(), refreshPaymentSteps()]);
  redrawButtons();
  await refreshAudit();
}

async function logIn(user, password) {
  store.setItem('user', user);
  store.setItem('password', password);
  const { status } = await call('GET', '/api/accounts/me');
  if (status !== 200) {
    store.removeItem('user');
    store.removeItem('password');
    $('login-error').textContent = status === 401 ? 'wrong user or password' : 'error ' + status;
    return;
  }
  $('login').hidden = true;
  $('shop').hidden = false;
  drawLog();
  await resendPending();
  await refresh();
}

$('login-form').onsubmit = (e) => {
  e.preventDefault();
  logIn($('user').value, $('password').value);
};
$('logout').onclick = () => { store.clear(); window.location.reload(); };
$('order').onclick = order;
$('order-double').onclick = () => perform('double', '/api/orders', orderBody());
$('order-retry').onclick = () => perform('retry', '/api/orders', orderBody());
$('order-reload').onclick = () => perform('reload', '/api/orders', orderBody());
$('retry-last').onclick = retryLast;
$('log-clear').onclick = () => { store.removeItem('log'); drawLog(); };
$('audit-refresh').onclick = refreshAudit;
// The audit also catches callbacks and relayed messages that arrive after an answer.
setInterval(() => { if (!$('shop').hidden) refresh(); }, 3000);

if (store.getItem('user')) logIn(store.getItem('user'), store.getItem('password'));
