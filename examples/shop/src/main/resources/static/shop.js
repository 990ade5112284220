// The shop's page: plain JavaScript, no build step. Credentials stay in sessionStorage and go out
// as HTTP Basic on every call. Every order and payment carries an Idempotency-Key; the buttons
// that repeat a request reuse its key, which is what makes the repeat harmless.
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

function log(method, path, key, answer, note) {
  const item = document.createElement('li');
  const what = answer.json && (answer.json.status && typeof answer.json.status === 'string'
    ? answer.json.status + (answer.json.paymentNo ? ' ' + answer.json.paymentNo : '')
    : answer.json.orderNo || answer.json.type || '');
  item.textContent = `${method} ${path} key=${key ? key.slice(0, 8) : '-'} → ${answer.status} ${what}`
    + (note ? `  [${note}]` : '')
    + (answer.replayed ? '  (replayed: same answer, no new effect)' : '');
  if (answer.replayed) item.className = 'replayed';
  $('log').prepend(item);
}

// Requests sent but not answered yet, by key, in sessionStorage: they survive a reload (the
// user's or the reload button's), after which each is sent again with its own key. Only an
// answer removes one. The last request is kept too, for the retry button.
function pending() {
  return JSON.parse(store.getItem('pending') || '{}');
}

function setPending(key, request) {
  const all = pending();
  if (request) all[key] = request; else delete all[key];
  store.setItem('pending', JSON.stringify(all));
}

async function send(method, path, body, key, note) {
  setPending(key, { path, body });
  store.setItem('last', JSON.stringify({ path, body, key }));
  const answer = await call(method, path, body, key);
  setPending(key, null);
  log(method, path, key, answer, note);
  return answer;
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

async function resendPending() {
  const all = pending();
  await Promise.all(Object.entries(all).map(
    ([key, r]) => send('POST', r.path, r.body, key, 're-sent after reload')));
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
}

async function refreshOrders() {
  const { json } = await call('GET', '/api/orders');
  const body = $('orders').querySelector('tbody');
  body.innerHTML = '';
  for (const o of json) {
    const row = body.insertRow();
    row.insertCell().textContent = o.orderNo;
    row.insertCell().textContent = o.amount.toFixed(2);
    row.insertCell().textContent = o.status;
    const cell = row.insertCell();
    for (const method of ['CARD', 'WALLET']) {
      for (const mode of ['once', 'double', 'retry', 'reload']) {
        const button = document.createElement('button');
        button.textContent = `${method} ${mode === 'once' ? '' : '(' + mode + ')'}`;
        button.className = 'small';
        button.dataset.pay = `${o.orderNo}:${method}:${mode}`;
        button.onclick = () => perform(mode, `/api/orders/${o.orderNo}/payments`, { method });
        cell.appendChild(button);
      }
    }
  }
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

async function refreshAudit() {
  const { json } = await call('GET', '/api/audit');
  $('audit-verdict').innerHTML = json.ok
    ? '<span class="ok">ok</span>: every invariant holds'
    : '<span class="bad">broken</span>: ' + brokenText(json);
  $('audit').textContent = JSON.stringify(json, null, 2);
}

async function refresh() {
  await Promise.all([refreshProducts(), refreshOrders(), refreshWallet()]);
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
  await resendPending();
  await refresh();
}

$('login-form').onsubmit = (e) => {
  e.preventDefault();
  logIn($('user').value, $('password').value);
};
$('logout').onclick = () => { store.clear(); window.location.reload(); };
$('order').onclick = () => perform('once', '/api/orders', orderBody());
$('order-double').onclick = () => perform('double', '/api/orders', orderBody());
$('order-retry').onclick = () => perform('retry', '/api/orders', orderBody());
$('order-reload').onclick = () => perform('reload', '/api/orders', orderBody());
$('retry-last').onclick = retryLast;
$('audit-refresh').onclick = refreshAudit;
// The audit also catches callbacks and relayed messages that arrive after an answer.
setInterval(() => { if (!$('shop').hidden) refresh(); }, 3000);

if (store.getItem('user')) logIn(store.getItem('user'), store.getItem('password'));
