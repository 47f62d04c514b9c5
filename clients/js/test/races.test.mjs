// Writes that land between the requests of one mirror operation, made by a `fetch` that runs
// them just before a chosen request: the operation tries again or reloads, or throws StaleError;
// never the server's `404 section-not-found` or `400 invalid-page-token`. On a server of the
// test's own (own-server.mjs), with a service token for the definition change.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { SectionalClient, StaleError } from '../sectional.mjs';
import { startServer } from './own-server.mjs';

const token = 'races-test-token';
/** @type {Awaited<ReturnType<typeof startServer>>} */
let server;
before(async () => { server = await startServer({ flags: ['--memory'], env: { SECTIONAL_API_TOKEN: token } }); });
after(async () => { await server?.stop(); });

const member = (id, name, team) => ({ id, name, team });

/**
 * A client whose `fetch` runs the armed action just before the first request whose URL matches.
 * @returns {{client: SectionalClient, arm: (match: RegExp, action: () => Promise<unknown>) => void, fired: () => boolean}}
 */
function hooked() {
  /** @type {{match: RegExp, action: () => Promise<unknown>}|null} */
  let armed = null;
  let ran = false;
  const client = new SectionalClient(server.url, {
    token,
    fetch: async (input, init) => {
      if (armed && armed.match.test(String(input))) {
        const { action } = armed;
        armed = null;
        ran = true;
        await action();
      }
      return fetch(input, init);
    },
  });
  return { client, arm: (match, action) => { armed = { match, action }; ran = false; }, fired: () => ran };
}

async function reset(writer) {
  const page = await writer.collection('crew').records({ pageSize: 500 });
  if (page.records.length) await writer.collection('crew').batch({ delete: page.records.map((r) => String(r.id)) });
}

/** A writer of the test's server, its crew emptied, then Ada (Design) and Bo (Eng) written. */
async function adaAndBo() {
  const writer = new SectionalClient(server.url, { token });
  await reset(writer);
  const crew = writer.collection('crew');
  await crew.batch({ upsert: [member('a', 'Ada', 'Design'), member('b', 'Bo', 'Eng')] });
  return { writer, crew };
}

const full = async (writer) => (await writer.list('crew').mirror({ pageSize: 500 }).reload({ rows: Infinity })).snapshot;
const shape = (snapshot) => snapshot.sections.map((s) => [s.section.key, s.rows.map((r) => (r ? r.id : null))]);

test('a sync whose section disappears before its row read tries again', async () => {
  const { writer, crew } = await adaAndBo();
  const { client, arm, fired } = hooked();
  const mirror = client.list('crew').mirror();
  await mirror.reload();
  await crew.put('c', member('c', 'Cy', 'Eng'));                 // the sync fetches Eng's new row
  arm(/\/sections\/2\/rows/, () => crew.batch({ delete: ['b', 'c'] }));   // Eng is emptied first
  const update = await mirror.sync();
  assert.ok(fired(), 'the write landed during the sync');
  const fresh = await full(writer);
  assert.equal(update.snapshot.version, fresh.version);
  assert.deepEqual(shape(update.snapshot), shape(fresh));
  assert.deepEqual(update.snapshot.sections.map((s) => s.section.key), ['pinned', 'Design']);
});

test('a reload whose definition changes while it walks pages starts again', async () => {
  const writer = new SectionalClient(server.url, { token });
  await reset(writer);
  await writer.collection('crew').batch({ upsert: [...Array(40).keys()].map((i) => member(`p${i}`, `N${i + 10}`, 'Design')) });
  const { client, arm, fired } = hooked();
  const mirror = client.list('crew').mirror({ pageSize: 10 });
  const definitionURL = `${server.url}/v1/lists/crew/definition`;
  const auth = { Authorization: `Bearer ${token}` };
  const { definition } = await (await fetch(definitionURL, { headers: auth })).json();
  try {
    arm(/pageToken=/, async () => {                                   // before the second page
      const put = await fetch(definitionURL, { method: 'PUT', headers: { ...auth, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...definition, title: 'Staff' }) });
      assert.ok(put.ok, `PUT definition: ${put.status}`);
    });
    const update = await mirror.reload({ rows: 30 });
    assert.ok(fired(), 'the definition changed during the reload');
    assert.equal(update.snapshot.title, 'Staff');
    const fresh = await full(writer);
    assert.equal(update.snapshot.version, fresh.version);
    assert.ok(update.snapshot.sections.reduce((a, s) => a + s.rows.filter((r) => r).length, 0) >= 30);
  } finally {
    await fetch(definitionURL, { method: 'DELETE', headers: auth });
  }
});

test('loads and toggles of a section that is gone throw StaleError; a view the toggle made stays', async () => {
  const { writer, crew } = await adaAndBo();
  const mirror = writer.list('crew').mirror({ pageSize: 1 });
  const loaded = (await mirror.reload({ rows: 2 })).snapshot;       // Me, Ada; Bo a placeholder
  assert.deepEqual(shape(loaded), [['pinned', ['me']], ['Design', ['a']], ['Eng', [null]]]);
  await crew.delete('b');                                            // Eng is gone
  const now = (await writer.list('crew').outline()).version;
  const stale = (e) => e instanceof StaleError && e.mirror === loaded.version && e.server === now;
  await assert.rejects(mirror.row({ section: 2, row: 0 }), stale, 'row()');
  await assert.rejects(mirror.loadNext(), stale, 'loadNext()');
  await assert.rejects(mirror.toggle(2), stale, 'toggle()');
  assert.ok(mirror.view, 'the toggle created a view');
  assert.equal(mirror.snapshot?.view, mirror.view, 'the snapshot is seen through the view the mirror reads through');
  assert.equal(mirror.snapshot?.version, loaded.version, 'nothing else stored');
  const synced = (await mirror.sync()).snapshot;
  assert.equal(synced.view, mirror.view);
  assert.deepEqual(synced.sections.map((s) => s.section.key), ['pinned', 'Design']);
});

test('a toggle whose index names another section by the time it arrives changes nothing', async () => {
  const { writer, crew } = await adaAndBo();
  const { client, arm, fired } = hooked();
  const list = client.list('crew');
  const view = (await list.createView()).view;
  const mirror = list.mirror({ view });
  const loaded = (await mirror.reload()).snapshot;
  assert.deepEqual(loaded.sections.map((s) => s.section.key), ['pinned', 'Design', 'Eng']);
  const before = (await list.view(view)).hidden;
  arm(/\/sections\/1/, () => crew.put('c', member('c', 'Cy', 'Accounts')));   // section 1 is Accounts now
  const error = await mirror.toggle(1).then(() => null, (e) => e);
  assert.ok(fired(), 'the write landed just before the toggle');
  const now = (await writer.list('crew').outline()).version;
  assert.ok(error instanceof StaleError && error.mirror === loaded.version && error.server === now, `StaleError at ${now}: ${error}`);
  assert.deepEqual((await list.view(view)).hidden, before, 'no section of the view changed');
});

test('a toggle asks for the state the mirror shows next, also when the view got there first', async () => {
  const { writer } = await adaAndBo();
  const list = writer.list('crew');
  const view = (await list.createView()).view;
  const mirror = list.mirror({ view });
  const loaded = (await mirror.reload()).snapshot;
  const eng = loaded.sections.findIndex((s) => s.section.key === 'Eng');
  await list.setHidden(true, eng, view);                              // another client of the view
  const update = await mirror.toggle(eng);
  assert.equal(update.snapshot.sections[eng].section.hidden, true);
  const { hidden } = await list.view(view);
  assert.ok(hidden.includes('Eng'), `the view hides Eng, as the mirror shows; it hides ${hidden}`);
});
