// Cancelling requests and mirror operations with an AbortSignal: against a server that never
// answers (silent-server.mjs), a cancelled read and a cancelled mirror operation reject with the
// signal's reason (`AbortError`) within a deadline, not when some timeout runs out; the mirror
// keeps what it held and its next operation gets through; a signal aborted already sends nothing;
// an event stream that hears nothing for its idle limit connects again, also while it waits for
// its token.
// The answering server is one of the test's own (own-server.mjs); the client's `fetch` sends a
// request to the silent one instead while `hang` is set.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { getEventListeners } from 'node:events';
import { SectionalClient } from '../sectional.mjs';
import { sleep } from '../sectional/abortable.mjs';
import { startServer } from './own-server.mjs';
import { startSilentServer } from './silent-server.mjs';

/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
/** @type {Awaited<ReturnType<typeof startSilentServer>>} */
let silent;
let hang = false;
before(async () => {
  // One after the other: a start that fails leaves the other one set, for `after` to stop.
  server = await startServer({ flags: ['--memory'] });
  silent = await startSilentServer();
  const writer = new SectionalClient(server.url).collection('crew');
  await writer.batch({ upsert: [...Array(30).keys()].map((i) => ({ id: `p${i}`, name: `N${i + 10}`, team: i % 2 ? 'Eng' : 'Design' })) });
});
after(async () => { await Promise.all([server?.stop(), silent?.stop()]); });

/** A client of the test's server whose requests, but for event streams, go to the silent one while `hang` is set. */
const client = () => new SectionalClient(server.url, {
  fetch: (input, init) => fetch(hang && !String(input).includes('/events') ? String(input).replace(server.url, silent.url) : input, init),
});

/**
 * What `promise` settles with, or a rejection saying `what` was still pending after `ms`.
 * @template T @param {Promise<T>} promise @param {string} what @param {number} [ms] @returns {Promise<T>}
 */
async function within(promise, what, ms = 5000) {
  /** @type {NodeJS.Timeout|undefined} */
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} still pending after ${ms} ms`)), ms); });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Waits (polling, 10 s at most) until the silent server has read more than `count` request heads.
 * @param {number} count @param {string} what
 */
async function reached(count, what) {
  const deadline = Date.now() + 10000;
  while (silent.requests() <= count) {
    assert.ok(Date.now() < deadline, `${what} never reached the server`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** @param {Promise<unknown>} promise @param {string} what */
const assertAborted = (promise, what) => assert.rejects(within(promise, what), { name: 'AbortError' }, what);

test('a read of a server that never answers ends when its signal aborts', async () => {
  hang = true;
  try {
    const controller = new AbortController();
    const before = silent.requests();
    const outline = client().list('crew').outline({ signal: controller.signal });
    await reached(before, 'outline()');
    controller.abort();
    await assertAborted(outline, 'outline() after abort()');
    // A token provider that never answers holds up no cancelled request either.
    const stuck = new SectionalClient(server.url, { tokenProvider: () => new Promise(() => undefined) });
    const waiting = new AbortController();
    const read = stuck.list('crew').outline({ signal: waiting.signal });
    waiting.abort();
    await assertAborted(read, 'outline() waiting for its token after abort()');
    // A signal's own reason comes through, as with fetch: AbortSignal.timeout's TimeoutError.
    await assert.rejects(within(client().list('crew').outline({ signal: AbortSignal.timeout(100) }), 'outline() with a timeout'),
      { name: 'TimeoutError' });
  } finally {
    hang = false;
  }
});

test('a cancelled mirror operation stores nothing and holds up no later one', async () => {
  const mirror = client().list('crew').mirror({ pageSize: 10 });
  const loaded = (await mirror.reload()).snapshot;
  await new SectionalClient(server.url).collection('crew').put('p0', { name: 'A0', team: 'Design' });
  hang = true;
  const controller = new AbortController();
  const before = silent.requests();
  let next;
  try {
    const sync = mirror.sync({ signal: controller.signal });
    await reached(before, 'sync()');
    next = mirror.sync();                    // called while the first one hangs: waits for it
    hang = false;
    controller.abort();
    await assertAborted(sync, 'sync() after abort()');
  } finally {
    hang = false;
  }
  assert.equal(mirror.snapshot, loaded, 'the cancelled sync stored nothing');
  const update = await within(next, 'the sync after the cancelled one');
  const fresh = (await client().list('crew').mirror({ pageSize: 10 }).reload({ rows: 10 })).snapshot;
  assert.equal(update.snapshot.version, fresh.version);
  assert.deepEqual(update.snapshot.sections[1].rows[0], fresh.sections[1].rows[0]);
  assert.equal(update.snapshot.sections[1].rows[0]?.title, 'A0');
  assert.equal(silent.requests(), before + 1, 'only the cancelled request went to the silent server');
});

test('a toggle whose answer came keeps its effect when the rows it reads next fail or are cancelled', async () => {
  const controller = new AbortController();
  /** @type {'abort'|'fail'|null} */
  let onRows = null;
  const c = new SectionalClient(server.url, {
    fetch: (input, init) => {
      if (onRows && String(input).includes('/rows')) {
        if (onRows === 'fail') return Promise.reject(new TypeError('fetch failed'));
        controller.abort();
      }
      return fetch(input, init);
    },
  });
  const list = c.list('crew');
  const mirror = list.mirror({ pageSize: 10 });
  await mirror.reload();
  await mirror.toggle(1);                                   // creates the mirror's view: Design hidden
  const key = mirror.snapshot.sections[1].section.key;
  const shownOnServer = async () => !(await list.view(mirror.view)).hidden.includes(key);
  assert.equal(await shownOnServer(), false);

  // Shown on the server, then the rows read for it cancelled: the call rejects, the mirror shows
  // the section as its view now has it, its rows placeholders that loadNext() reads.
  onRows = 'abort';
  await assertAborted(mirror.toggle(1, { signal: controller.signal }), 'toggle() cancelled while reading its rows');
  onRows = null;
  assert.equal(await shownOnServer(), true, 'the toggle reached the server');
  let own = mirror.snapshot.sections[1];
  assert.equal(own.section.hidden, false, 'the mirror shows the section as its view has it');
  assert.equal(own.rows.length, own.section.totalRowCount);
  assert.ok(own.rows.every((row) => row === null), 'its rows are placeholders');
  assert.equal(await mirror.loadNext(), true);
  own = mirror.snapshot.sections[1];
  assert.equal(own.section.hidden, false);
  assert.ok(own.rows.slice(0, 10).every((row) => row !== null), 'loadNext() read them');
  assert.equal((await mirror.sync()).snapshot.sections[1].section.hidden, false, 'a sync finds the mirror as its view is');

  // Hidden, then shown with the rows read failing: the toggle answers, its rows placeholders.
  await mirror.toggle(1);
  onRows = 'fail';
  const update = await mirror.toggle(1);
  onRows = null;
  assert.equal(await shownOnServer(), true);
  assert.equal(update.snapshot, mirror.snapshot);
  assert.equal(update.snapshot.sections[1].section.hidden, false);
  assert.ok(update.snapshot.sections[1].rows.every((row) => row === null));
  assert.deepEqual(update.changes.rows.inserted.length, update.snapshot.sections[1].rows.length);
});

test('an operation waiting behind a hung one rejects at once when its signal aborts, and sends nothing', async () => {
  const mirror = client().list('crew').mirror({ pageSize: 10 });
  const loaded = (await mirror.reload()).snapshot;
  hang = true;
  const first = new AbortController(), second = new AbortController();
  const before = silent.requests();
  try {
    const hung = mirror.sync({ signal: first.signal });
    await reached(before, 'sync()');
    const waiting = mirror.row({ section: 1, row: 12 }, { signal: second.signal });
    second.abort();
    await assertAborted(waiting, 'row(at:) waiting behind a hung sync, after abort()');
    first.abort();
    await assertAborted(hung, 'the hung sync after abort()');
  } finally {
    hang = false;
  }
  assert.equal(silent.requests(), before + 1, 'the cancelled row() sent nothing');
  assert.equal(mirror.snapshot, loaded);
  const row = await within(mirror.row({ section: 1, row: 12 }), 'row(at:) after both were cancelled');
  assert.equal(row?.indexPath.row, 12);
});

test('updates() ends when its signal aborts during a sync that hangs', async () => {
  const mirror = client().list('crew').mirror({ pageSize: 10 });
  const loaded = (await mirror.reload()).snapshot;
  const controller = new AbortController();
  const before = silent.requests();
  hang = true;
  try {
    /** @type {unknown[]} */
    const seen = [];
    const loop = (async () => { for await (const update of mirror.updates({ signal: controller.signal })) seen.push(update); })();
    // The stream sends the current version when it connects: a newer one than the mirror's, either way.
    await new SectionalClient(server.url).collection('crew').put('p2', { name: 'A2', team: 'Design' });
    await reached(before, 'the sync an event started');
    controller.abort();
    await within(loop, 'updates() after abort()');
    assert.deepEqual(seen, []);
    assert.equal(mirror.snapshot, loaded, 'the cancelled sync stored nothing');
  } finally {
    hang = false;
  }
});

test('a signal aborted already rejects at once and sends nothing', async () => {
  hang = true;
  try {
    const aborted = AbortSignal.abort();
    const before = silent.requests();
    const list = client().list('crew');
    await assertAborted(list.outline({ signal: aborted }), 'outline() with an aborted signal');
    await assertAborted(client().collection('crew').get('p1', { signal: aborted }), 'get() with an aborted signal');
    const mirror = list.mirror();
    await assertAborted(mirror.reload({ signal: aborted }), 'reload() with an aborted signal');
    assert.equal(mirror.snapshot, null);
    // Then a request that is sent: the silent server reads it, and it is the only one it read.
    const controller = new AbortController();
    const sent = list.outline({ signal: controller.signal });
    await reached(before, 'the outline() sent after them');
    controller.abort();
    await assertAborted(sent, 'that outline() after abort()');
    assert.equal(silent.requests(), before + 1, 'the aborted signals sent nothing');
  } finally {
    hang = false;
  }
});

test('an event stream on which nothing arrives for idleTimeout ms is connected again', async () => {
  const events = new SectionalClient(silent.url).list('crew');
  const controller = new AbortController();
  const from = silent.requests();
  const reading = (async () => {
    for await (const _ of events.events({ signal: controller.signal, idleTimeout: 200, reconnectDelay: 20 }));
  })();
  try {
    // Without the limit the first request waits for its answer for good: one head, never more.
    await reached(from + 2, 'a third connection of the stream');
  } finally {
    controller.abort();
  }
  await within(reading, 'events() after abort()');
});

test('an event stream waiting for its token ends when aborted, and asks again after its idle limit', async () => {
  // A token provider that never settles (a refresh waiting for a network that is gone): the
  // stream waited for it for good, its signal and its idle limit both ignored.
  let asked = 0;
  const stuck = new SectionalClient(server.url, { tokenProvider: () => { asked++; return new Promise(() => undefined); } });
  const controller = new AbortController();
  const reading = (async () => {
    for await (const _ of stuck.list('crew').events({ signal: controller.signal, idleTimeout: 100, reconnectDelay: 20 }));
  })();
  try {
    const deadline = Date.now() + 10_000;
    while (asked < 2 && Date.now() < deadline) await sleep(10);
    assert.ok(asked >= 2, `the token asked ${asked} time(s): the idle limit never ended the first wait`);
  } finally {
    controller.abort();
  }
  await within(reading, 'events() waiting for its token after abort()');
});

test('a sleep leaves no listener on its signal, when it ends and when it is aborted', async () => {
  const controller = new AbortController();
  for (let i = 0; i < 20; i += 1) await sleep(1, controller.signal);
  assert.equal(getEventListeners(controller.signal, 'abort').length, 0, 'twenty sleeps that ran out');
  const aborted = new AbortController();
  const asleep = sleep(60_000, aborted.signal);
  aborted.abort();
  await asleep;
  assert.equal(getEventListeners(aborted.signal, 'abort').length, 0, 'a sleep cut short');
});
