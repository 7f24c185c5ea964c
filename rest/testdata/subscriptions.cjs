// GraphQL subscriptions as the npm clients make them, across two nodes:
// subscribed on node B (graphql-ws over WebSocket, graphql-sse over
// Server-Sent Events), changed through node A. Run by
// subscriptions_test.go:
//
//   node subscriptions.cjs '<JSON: wsB, httpA, httpB, adminKey, edKey, item, folder>'
//
// Prints a JSON summary on stdout; a wait that times out throws (exit 1).
'use strict';
const WebSocket = require('ws');
const { createClient: wsClient } = require('graphql-ws');
const { createClient: sseClient } = require('graphql-sse');

const cfg = JSON.parse(process.argv[2]);
const EVENT = 'id type itemId item { title } data';

// A subscription's events, with a wait for the next ones.
function collector() {
  const c = { events: [], error: null, done: false, waiters: [] };
  c.push = (e) => { c.events.push(e); c.waiters = c.waiters.filter((w) => !w()); };
  c.until = (pred, ms, what) => new Promise((resolve, reject) => {
    const check = () => { if (pred(c)) { resolve(); return true; } return false; };
    if (check()) return;
    c.waiters.push(check);
    setTimeout(() => reject(new Error('timed out waiting for ' + what + '; got ' + JSON.stringify(c.events))), ms);
  });
  return c;
}

function wsSubscribe(key, query, variables) {
  const c = collector();
  const client = wsClient({ url: cfg.wsB, webSocketImpl: WebSocket, lazy: false,
    connectionParams: { Authorization: 'Bearer ' + key } });
  c.dispose = client.subscribe({ query, variables }, {
    next: (r) => { if (r.errors) c.error = r.errors; if (r.data) c.push(Object.values(r.data)[0]); },
    error: (e) => { c.error = String(e && e.message || e); },
    complete: () => { c.done = true; },
  });
  c.client = client;
  return c;
}

function sseSubscribe(key, query, variables) {
  const c = collector();
  const client = sseClient({ url: cfg.httpB + '/graphql', singleConnection: false,
    headers: { Authorization: 'Bearer ' + key } });
  c.dispose = client.subscribe({ query, variables }, {
    next: (r) => { if (r.errors) c.error = r.errors; if (r.data) c.push(Object.values(r.data)[0]); },
    error: (e) => { c.error = String(e && e.message || e); },
    complete: () => { c.done = true; },
  });
  c.client = client;
  return c;
}

// A change through node A, as any client makes it.
async function onA(key, query, variables) {
  const res = await fetch(cfg.httpA + '/graphql', { method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + key },
    body: JSON.stringify({ query, variables }) });
  const body = await res.json();
  if (body.errors) throw new Error(JSON.stringify(body.errors));
  return body.data;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const changeMetadata = (notes) => onA(cfg.adminKey,
  'mutation($in: UpdateItemMetadataInput!) { updateItemMetadata(input: $in) { item { id } } }',
  { in: { id: cfg.item, metadataDelta: { formData: { notes } } } });

(async () => {
  const out = {};
  // Ed (an editor) follows the folder; the admin the item; ed the item's
  // comments over SSE.
  const edFolder = wsSubscribe(cfg.edKey, `subscription($f: ID) { itemEvents(folderId: $f) { ${EVENT} } }`, { f: cfg.folder });
  const admin = wsSubscribe(cfg.adminKey, `subscription($i: ID) { itemEvents(itemId: $i) { ${EVENT} } }`, { i: cfg.item });
  const edComments = sseSubscribe(cfg.edKey, `subscription($i: ID!) { commentEvents(itemId: $i) { ${EVENT} } }`, { i: cfg.item });
  const notices = wsSubscribe(cfg.edKey, 'subscription { viewerNotifications { id type message } }', {});
  await sleep(1000); // the subscriptions are in place

  const t0 = Date.now();
  await changeMetadata('first');
  await edFolder.until((c) => c.events.length >= 1, 10000, "ed's first change");
  out.latencyMs = Date.now() - t0;
  await onA(cfg.adminKey, 'mutation($in: CreateCommentInput!) { createComment(input: $in) { id } }',
    { in: { itemId: cfg.item, text: 'Please look, @ed@a.test' } });
  await edComments.until((c) => c.events.length >= 1, 10000, "ed's comment event (SSE)");
  await notices.until((c) => c.events.length >= 1, 10000, "ed's notification");

  // Ed loses the folder: the next change reaches the admin, not ed.
  await onA(cfg.adminKey, 'mutation($in: UpdateFolderInput!) { updateFolder(input: $in) { id } }',
    { in: { id: cfg.folder, visibleTo: { level: 'selected_groups', groups: [cfg.nobody] } } });
  await changeMetadata('second');
  await admin.until((c) => c.events.filter((e) => e.type === 'itemChange').length >= 2, 10000, "the admin's second change");
  await sleep(1500);

  // Resuming from the admin's first event: the rest again, in order, no gap.
  const first = admin.events[0].id;
  const resumed = wsSubscribe(cfg.adminKey, `subscription($i: ID, $s: String) { itemEvents(itemId: $i, since: $s) { ${EVENT} } }`,
    { i: cfg.item, s: first });
  await resumed.until((c) => c.events.length >= admin.events.length - 1, 10000, 'the replay');
  await sleep(500);

  const summary = (c) => ({ events: c.events.map((e) => [e.id, e.type, e.item && e.item.title, e.data]), error: c.error });
  Object.assign(out, { edFolder: summary(edFolder), admin: summary(admin), edComments: summary(edComments),
    notices: { events: notices.events, error: notices.error }, resumed: summary(resumed) });
  for (const c of [edFolder, admin, edComments, notices, resumed]) c.dispose();
  for (const c of [edFolder, admin, notices, resumed]) await c.client.dispose();
  edComments.client.dispose();
  console.log(JSON.stringify(out));
  process.exit(0);
})().catch((e) => { console.error(e && e.stack || e); process.exit(1); });
