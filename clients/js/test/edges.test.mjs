// The JavaScript client's edges against a live server (SECTIONAL_URL, started by
// scripts/js-client-test.sh): mirrors keeping tag locations right after in-place tag-length
// changes, event streams closed when a loop over them is left, sections shown or hidden elsewhere
// through a mirror's view; reconnect delays. On the `crew` list (collection `crew`), so node --test may run this
// file next to client.test.mjs, which resets `people`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { SectionalClient, reconnectDelay } from '../sectional.mjs';
import { random } from './random.mjs';
import { startServer } from './own-server.mjs';

const base = process.env.SECTIONAL_URL;
if (!base) throw new Error('SECTIONAL_URL is not set: run scripts/js-client-test.sh');
const client = new SectionalClient(base);
const crew = client.collection('crew');
const list = client.list('crew');

// `bot` rows hold one tag, the others two (config.json).
const member = (id, name, team, bot = false) => ({ id, name, team, ...(bot ? { kind: 'bot' } : {}) });

async function reset() {
  const ids = [];
  /** @type {string|undefined} */
  let token;
  do {
    const page = await crew.records({ pageSize: 500, token });
    ids.push(...page.records.map((r) => String(r.id)));
    token = page.nextPageToken;
  } while (token);
  if (ids.length) await crew.batch({ delete: ids });
}

const fullFetch = async (view) => (await list.mirror({ view, pageSize: 500 }).reload({ rows: Infinity })).snapshot;

// Every row `got` holds equals the full fetch's row at its place (index path and tag included).
function assertHeldRowsMatch(got, want, context) {
  assert.equal(got.version, want.version, context);
  assert.deepEqual(got.sections.map((s) => s.section), want.sections.map((s) => s.section), context);
  got.sections.forEach((s, n) => {
    assert.equal(s.rows.length, want.sections[n].rows.length, context);
    s.rows.forEach((row, r) => { if (row) assert.deepEqual(row, want.sections[n].rows[r], `${context}: ${s.section.key} row ${r}`); });
  });
}

test('held rows after a placeholder follow an in-place tag-length change', async () => {
  await reset();
  await crew.batch({ upsert: [...Array(9).keys()].map((i) => member(`g${i}`, `A${i}`, 'Eng')) });
  const mirror = list.mirror({ pageSize: 3 });
  await mirror.reload();                                 // me, g0, g1
  await mirror.row({ section: 1, row: 7 });              // g6, g7, g8
  await crew.patch('g0', { kind: 'bot' });               // tag length 2 → 1, in place
  const update = await mirror.sync();
  assert.deepEqual(update.changes.rows.updated, [{ section: 1, row: 0 }], 'an update in place');
  assert.deepEqual(update.snapshot.sections[1].rows.filter((r) => r).map((r) => r.id), ['g0', 'g1', 'g6', 'g7', 'g8']);
  assertHeldRowsMatch(update.snapshot, await fullFetch(), 'after g0 became a bot');
});

test('a partly loaded mirror keeps its tags right after random kind flips and edits', async () => {
  const name = (i) => `N${String(i).padStart(2, '0')}`;     // names never change: a kind flip stays in place
  for (const seed of [1, 2, 3, 4]) {
    await reset();
    const next = random(seed);
    const bots = new Map();
    for (let i = 0; i < 16; i++) bots.set(`t${i}`, next(3) === 0);
    await crew.batch({ upsert: [...Array(16).keys()].map((i) => member(`t${i}`, name(i), ['Design', 'Eng'][next(2)], bots.get(`t${i}`))) });
    const mirror = list.mirror({ pageSize: 2 });
    await mirror.reload();
    for (let round = 0; round < 12; round++) {
      const context = `seed ${seed} round ${round}`;
      const s = mirror.snapshot;
      const total = s.sections.reduce((a, x) => a + x.rows.length, 0);
      for (let k = 0; k < 2 && total > 0; k++) {
        // A row somewhere (the mirror was synced at the end of the last round: not stale).
        let n = next(total);
        for (const [i, sec] of s.sections.entries()) {
          if (n < sec.rows.length) { await mirror.row({ section: i, row: n }); break; }
          n -= sec.rows.length;
        }
      }
      const edits = 1 + next(3);
      for (let e = 0; e < edits; e++) {
        const i = next(20), id = `t${i}`, what = next(6);
        if (what < 4 && bots.has(id)) {
          bots.set(id, !bots.get(id));
          await crew.patch(id, { kind: bots.get(id) ? 'bot' : null });
        } else if (what === 5 && bots.has(id)) {
          bots.delete(id);
          await crew.delete(id);
        } else {                                           // a new record, or one moved to a team (maybe its own)
          bots.set(id, next(2) === 0);
          await crew.put(id, member(id, name(i), ['Design', 'Eng'][next(2)], bots.get(id)));
        }
      }
      const update = await mirror.sync();
      assertHeldRowsMatch(update.snapshot, await fullFetch(), context);
    }
  }
});

// A server's open event streams (the `sectional_event_streams` gauge).
async function openStreams(at) {
  const metrics = await (await fetch(`${at}/metrics`)).text();
  const found = metrics.match(/^sectional_event_streams (\d+)$/m);
  assert.ok(found, 'the gauge is there');
  return Number(found[1]);
}

// On a server of its own, whose gauge no other file's streams move.
test('leaving a for await over events() or updates() closes the stream', async () => {
  const server = await startServer({ flags: ['--memory'] });
  try {
    await leavingLoopsClosesStreams(server.url);
  } finally {
    await server.stop();
  }
});

async function leavingLoopsClosesStreams(at) {
  const own = new SectionalClient(at);
  const list = own.list('crew');
  const crew = own.collection('crew');
  assert.equal(await openStreams(at), 0);
  for await (const event of list.events()) { assert.ok(event.version >= 0); break; }
  const first = async () => { for await (const event of list.events()) return event; };
  assert.ok(await first());
  await assert.rejects(async () => { for await (const _ of list.events()) throw new Error('stop'); }, /stop/);
  const mirror = list.mirror();
  await mirror.reload();
  await crew.put('u1', member('u1', 'Ulla', 'Ops'));   // the stream's greeting is newer than the mirror
  for await (const update of mirror.updates()) { assert.equal(update.changes.reload, false); break; }
  // A stream ends when its connection closes, a moment after the loop: wait (with a deadline).
  const deadline = Date.now() + 10000;
  let open = await openStreams(at);
  while (open > 0) {
    assert.ok(Date.now() < deadline, `${open} event streams still open after the loops`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    open = await openStreams(at);
  }
}

test("a section shown or hidden elsewhere through the mirror's view is picked up by sync", async () => {
  await reset();
  await crew.batch({ upsert: [member('p1', 'Ada', 'Design'), member('p2', 'Bob', 'Eng'), member('p3', 'Cy', 'Eng')] });
  const mirror = list.mirror({ pageSize: 10 });
  await mirror.reload();
  await mirror.toggle(1);                                // creates the mirror's view: Design hidden
  const view = /** @type {string} */ (mirror.view);
  const { version } = mirror.snapshot;

  // Another device shows Design again, then hides Eng, through the same view.
  await list.toggle(1, view);
  let update = await mirror.sync();
  assert.equal((await list.outline({ view })).version, version, "a view's change does not move the list's version");
  assert.equal(update.changes.reload, true, 'the mirror reloads');
  assert.deepEqual(update.snapshot.sections.map((s) => s.section.hidden), [false, false, false]);
  assert.deepEqual(update.snapshot.sections[1].rows.map((r) => r && r.id), ['p1']);
  await list.setHidden(true, 2, view);
  update = await mirror.sync();
  assert.equal(update.changes.reload, true);
  const fresh = await fullFetch(view);
  assert.deepEqual(update.snapshot, fresh, 'the mirror sees what the view shows');
  assert.equal(update.snapshot.sections[2].section.hidden, true);

  // Nothing changed since: an empty update, no reload.
  update = await mirror.sync();
  assert.equal(update.changes.reload, false);
  assert.equal(update.snapshot, mirror.snapshot);
  assert.deepEqual(update.snapshot, fresh);
});

test("a section hidden elsewhere through the mirror's view makes loadNext stale, not loop", async () => {
  await reset();
  await crew.batch({ upsert: Array.from({ length: 12 }, (_, i) => member(`e${String(i).padStart(2, '0')}`, `E${i}`, 'Eng')) });
  const view = (await list.createView()).view;
  const mirror = list.mirror({ view, pageSize: 5 });
  await mirror.reload({ rows: 5 });
  const eng = mirror.snapshot.sections.findIndex((s) => s.section.key === 'Eng');
  await list.setHidden(true, eng, view);                 // another device, same view: no version moves
  // It answered `true` (rows loaded) without storing any, so a load-everything loop never ended.
  await assert.rejects(mirror.loadNext(), (e) => e.name === 'StaleError');
  const update = await mirror.sync();
  assert.equal(update.changes.reload, true);
  assert.equal(update.snapshot.sections[eng].section.hidden, true);
  let loads = 0;
  while (await mirror.loadNext()) assert.ok(++loads < 20, 'loadNext ends');
  assert.deepEqual(mirror.snapshot, await fullFetch(view));
});

test("a mirror whose view is gone reads the list as it is for everyone", async () => {
  await reset();
  await crew.batch({ upsert: [member('p1', 'Ada', 'Design'), member('p2', 'Bob', 'Eng')] });
  const mirror = list.mirror({ pageSize: 10 });
  await mirror.reload();
  await mirror.toggle(1);                                // creates the mirror's view
  const view = /** @type {string} */ (mirror.view);
  await list.deleteView(view);                           // deleted elsewhere (or expired)
  // Every sync and reload threw 404 view-not-found, and updates() ended with it.
  const update = await mirror.sync();
  assert.equal(update.changes.reload, true);
  assert.equal(mirror.view, undefined);
  assert.deepEqual(update.snapshot, await fullFetch(undefined));
  assert.equal((await mirror.reload()).snapshot.view, undefined);
  await mirror.toggle(1);                                // a toggle makes a new view
  assert.notEqual(mirror.view, undefined);
  assert.notEqual(mirror.view, view);
});

test('a toggle or a row load through a view that is gone says StaleError; the sync after reloads without it', async () => {
  await reset();
  await crew.batch({ upsert: Array.from({ length: 30 }, (_, i) => member(`p${i}`, `P${i}`, i % 2 ? 'Eng' : 'Design')) });
  const mirror = list.mirror({ pageSize: 5 });
  await mirror.reload();
  await mirror.toggle(1);                                // creates the mirror's view
  await mirror.toggle(1);
  const view = /** @type {string} */ (mirror.view);
  await list.deleteView(view);
  // Each threw 404 view-not-found, for good: the mirror kept the dead id.
  await assert.rejects(mirror.loadNext(), (e) => e.name === 'StaleError');
  await assert.rejects(mirror.toggle(1), (e) => e.name === 'StaleError');
  assert.equal((await mirror.sync()).changes.reload, true);
  assert.equal(mirror.view, undefined);
  assert.equal(await mirror.loadNext(), true);
  const shown = mirror.snapshot?.sections[1].section.hidden;
  await mirror.toggle(1);
  assert.notEqual(mirror.view, undefined);
  assert.notEqual(mirror.view, view);
  assert.equal(mirror.snapshot?.sections[1].section.hidden, !shown);
});

test('a reload that fails after finding the view gone stores nothing, the dropped view neither', async () => {
  await reset();
  await crew.batch({ upsert: [member('p1', 'Ada', 'Design'), member('p2', 'Bob', 'Eng')] });
  // Its page reads fail once armed (the outline read before them goes through).
  let failPages = false;
  const failing = new SectionalClient(base, {
    fetch: async (input, init) => {
      if (failPages && String(input).includes('/rows')) throw new TypeError('network down');
      return fetch(input, init);
    },
  });
  const mirror = failing.list('crew').mirror({ pageSize: 10 });
  await mirror.reload();
  await mirror.toggle(1);                                // creates the mirror's view
  const view = /** @type {string} */ (mirror.view);
  const before = mirror.snapshot;
  await list.deleteView(view);
  failPages = true;
  await assert.rejects(mirror.reload(), /network down/);
  // The old snapshot with the view gone from the mirror read as "nothing changed" by a sync.
  assert.equal(mirror.snapshot, before);
  assert.equal(mirror.view, view);
  failPages = false;
  assert.equal((await mirror.sync()).changes.reload, true);
  assert.equal(mirror.view, undefined);
  assert.deepEqual(mirror.snapshot, await fullFetch(undefined));
});

test('a sync fetches no row the mirror never loaded, updated or not', async () => {
  await reset();
  const name = (/** @type {number} */ i) => `U${String(i).padStart(2, '0')}`;
  await crew.batch({ upsert: Array.from({ length: 40 }, (_, i) => member(`u${i}`, name(i), 'Eng')) });
  let ranges = 0;
  const counting = new SectionalClient(base, {
    fetch: (input, init) => { if (String(input).includes('/sections/')) ranges++; return fetch(input, init); },
  });
  const mirror = counting.list('crew').mirror({ pageSize: 5 });
  await mirror.reload();
  const loaded = mirror.snapshot;
  assert.ok(loaded);
  const eng = loaded.sections.findIndex((s) => s.section.key === 'Eng');
  const unloaded = loaded.sections[eng].rows.lastIndexOf(null);
  assert.ok(unloaded > 5, 'rows past the first page are placeholders');
  // A bot's title and tag length differ: the row is updated in place (the name keeps its place).
  await crew.put('u39', member('u39', name(39), 'Eng', true));
  ranges = 0;
  const update = await mirror.sync();
  assert.deepEqual(update.changes.rows.updated, [{ section: eng, row: unloaded }]);
  assert.equal(ranges, 0, 'the placeholder was fetched');
  assert.equal(update.snapshot.sections[eng].rows[unloaded], null);
  // Loaded as ever when asked for.
  const row = await mirror.row({ section: eng, row: unloaded });
  assert.equal(row?.title, `${name(39)} (bot)`);
});

test('a section without a footer leaves it out (the JSDoc types say so: types.check.mjs)', async () => {
  const [pinned] = (await list.outline()).sections;
  assert.equal(pinned.key, 'pinned');
  assert.deepEqual(pinned.header, { title: 'Pinned', height: 28 });
  assert.equal('footer' in pinned, false, 'absent, never null');
});

test('an event stream through a proxy that answers 502 and 504 (every instance restarting) reconnects, not ends', async () => {
  // A forwarding proxy in front of the server, as the deployment's nginx: its first answers are
  // its own 502 and 504 (no upstream up), then it passes requests and answers through.
  const own = [502, 504];
  /** @type {(string|undefined)[]} each forwarded request's Last-Event-ID */
  const lastEventIDs = [];
  const gateway = http.createServer((request, response) => {
    const status = own.shift();
    if (status) { response.writeHead(status, { 'Content-Type': 'text/html' }); response.end(`<html>${status}</html>`); return; }
    lastEventIDs.push(/** @type {string|undefined} */ (request.headers['last-event-id']));
    const forward = http.request(new URL(request.url ?? '/', base), { method: request.method, headers: request.headers }, (answer) => {
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(response);
    });
    forward.on('error', () => response.destroy());
    response.on('close', () => forward.destroy());
    request.pipe(forward);
  });
  await new Promise((resolve) => gateway.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (gateway.address());
  try {
    const through = new SectionalClient(`http://127.0.0.1:${address.port}`).list('crew');
    const seen = [];
    for await (const event of through.events({ reconnectDelay: 20 })) {
      seen.push(event);
      if (seen.length === 1) {
        assert.deepEqual(own, [], 'the stream met both answers of the proxy and went on');
        gateway.closeAllConnections();   // the stream reconnects, with Last-Event-ID
        await crew.put('gw1', member('gw1', 'Gia', 'Ops'));
      }
      if (seen.length === 2) break;
    }
    // Each connection's first event says so: a mirror then forgets what it heard before, as the
    // server may have gone back below the mirror in between.
    assert.deepEqual(seen.map((e) => e.firstOnConnection), [true, true]);
    assert.ok(seen[1].version > seen[0].version);
    // The server's greeting on the new connection is newer with the header or without it (the
    // write came first): the header itself is what says the stream resumed.
    assert.deepEqual(lastEventIDs, [undefined, String(seen[0].version)]);
  } finally {
    gateway.closeAllConnections();
    await new Promise((resolve) => gateway.close(() => resolve(undefined)));
  }
});

test("a problem keeps its answer's Retry-After, which a mirror's sync waits", async () => {
  await assert.rejects(client.readingAtLeast(Number.MAX_SAFE_INTEGER).list('crew').outline(), (e) => {
    assert.equal(e.status, 503);
    assert.equal(e.slug, 'not-caught-up');
    assert.equal(e.retryAfter, '1');
    assert.equal(reconnectDelay({ retryAfter: e.retryAfter, retry: 2000, failures: 1 }), 1000);
    return true;
  });
});

test("an event stream's reconnect delay: a 503's Retry-After, else the backoff", () => {
  // Without a Retry-After: the server's retry, doubled per failure in a row (to 30 s), or the fixed delay.
  assert.equal(reconnectDelay({ retry: 2000, failures: 0 }), 2000);
  assert.equal(reconnectDelay({ retry: 2000, failures: 2 }), 8000);
  assert.equal(reconnectDelay({ retry: 2000, failures: 9 }), 30000);
  assert.equal(reconnectDelay({ fixed: 200, retry: 2000, failures: 3 }), 200);
  // too-many-event-streams says `Retry-After: 5`: 5 s, not the backoff's 4 s, nor a fixed delay.
  assert.equal(reconnectDelay({ retryAfter: '5', retry: 2000, failures: 1 }), 5000);
  assert.equal(reconnectDelay({ retryAfter: '5', fixed: 200, retry: 2000, failures: 1 }), 5000);
  // Seconds or an HTTP date, at most 5 minutes; a field that is neither is ignored.
  assert.equal(reconnectDelay({ retryAfter: '0', retry: 2000, failures: 1 }), 1000, 'at least a second');
  assert.equal(reconnectDelay({ retryAfter: '86400', retry: 2000, failures: 1 }), 300000);
  assert.equal(reconnectDelay({ retryAfter: 'soon', retry: 2000, failures: 1 }), 4000);
  assert.equal(reconnectDelay({ retryAfter: '-3', retry: 2000, failures: 1 }), 4000);
  assert.equal(reconnectDelay({ retryAfter: 'Tue, 32 Nov 2023 22:13:32 GMT', retry: 2000, failures: 1 }), 4000, 'a date that is none');
  const now = Date.UTC(2023, 10, 14, 22, 13, 20);
  assert.equal(reconnectDelay({ retryAfter: 'Tue, 14 Nov 2023 22:13:32 GMT', retry: 2000, failures: 1, now }), 12000);
  assert.equal(reconnectDelay({ retryAfter: 'Tue, 14 Nov 2023 22:13:00 GMT', retry: 2000, failures: 1, now }), 1000, 'a date passed: a second');
});
