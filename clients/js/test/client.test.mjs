// The JavaScript client against a live server (SECTIONAL_URL, started by scripts/js-client-test.sh
// with clients/js/test/config.json): the mirror property test, endpoints, typed problems, events.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { SectionalClient, SectionalError, StaleError } from '../sectional.mjs';
import { applyChanges } from './apply-changes.mjs';
import { random } from './random.mjs';

const base = process.env.SECTIONAL_URL;
if (!base) throw new Error('SECTIONAL_URL is not set: run scripts/js-client-test.sh');
const client = new SectionalClient(base);
const people = client.collection('people');
const list = client.list('people');
const TEAMS = ['Design', 'Eng', 'Ops', 'Archived', 'Sales'];
const NAMES = ['Ada', 'Bob', 'Cy', 'Dee', 'Eve', 'Fay', 'bot-a', 'bot-b', 'Gus', 'Hal'];

const person = (id, name, team) => ({ id, name, team, email: `${id}@example.com`, ...(name.startsWith('bot') ? { kind: 'bot' } : {}) });

async function reset() {
  const ids = Array.from({ length: 18 }, (_, i) => `p${i}`);
  await people.batch({ delete: ids });
}

// "id|content" per row (null: a placeholder), as the reference applier's content mode wants.
const outline = (snapshot) => snapshot.sections.map((s) => ({
  key: s.section.key,
  rows: s.rows.map((r) => (r ? `${r.id}|${r.type}|${r.title}|${r.subtitle ?? ''}|${r.tag.length}|${r.height}` : null)),
}));

function checkApplies(update, before, context) {
  try {
    applyChanges(outline(before), update.changes, outline(update.snapshot), true);
  } catch (e) {
    assert.fail(`${context}: ${e.message}\nchanges: ${JSON.stringify(update.changes)}`);
  }
}

/**
 * Waits (polling, 20 s at most) until `done()`; fails saying `what` otherwise.
 * @param {() => boolean} done @param {() => string} what
 */
async function until(done, what) {
  const deadline = Date.now() + 20000;
  while (!done()) {
    assert.ok(Date.now() < deadline, what());
    await new Promise((r) => setTimeout(r, 20));
  }
}

const shape = (snapshot) => ({ version: snapshot.version, sections: snapshot.sections.map((s) => ({ section: s.section, rows: s.rows })) });

test('a synced mirror equals a fresh fetch, and its batch update applies', async () => {
  for (const seed of [1, 2, 3]) {
    await reset();
    const next = random(seed);
    const ids = new Set();
    for (let i = 0; i < 12; i++) {
      ids.add(`p${i}`);
      await people.put(`p${i}`, person(`p${i}`, NAMES[next(NAMES.length)], TEAMS[next(TEAMS.length)]));
    }
    const full = list.mirror({ pageSize: 4 });
    await full.reload({ rows: Infinity });
    const partial = list.mirror({ pageSize: 3 });
    await partial.reload();
    let toggles = 0, loads = 0;
    for (let round = 0; round < 30; round++) {
      const context = `seed ${seed} round ${round}`;
      if (next(4) === 0) {
        const count = () => partial.snapshot.sections.reduce((a, s) => a + s.rows.filter((r) => r).length, 0);
        const before = count();
        const more = await partial.loadNext();
        assert.equal(more, count() > before, `${context}: loadNext loads rows while there are placeholders`);
      }
      const p = partial.snapshot;
      if (next(3) === 0 && p) {
        const total = p.sections.reduce((a, s) => a + s.rows.length, 0);
        if (total > 0) {
          let n = next(total);
          for (const [s, sec] of p.sections.entries()) {
            if (n < sec.rows.length) { assert.ok(await partial.row({ section: s, row: n }), context); loads++; break; }
            n -= sec.rows.length;
          }
        }
      }
      const ops = 1 + next(3);
      for (let op = 0; op < ops; op++) {
        const kind = next(10);
        const sorted = [...ids].sort();
        if (kind < 5) {
          const id = `p${next(18)}`;
          ids.add(id);
          await people.put(id, person(id, NAMES[next(NAMES.length)], TEAMS[next(TEAMS.length)]));
        } else if (kind < 7) {
          if (!sorted.length) continue;
          const id = sorted[next(sorted.length)];
          ids.delete(id);
          await people.delete(id);
        } else if (kind === 7) {
          const moving = sorted.slice(0, 3).map((id) => person(id, NAMES[next(NAMES.length)], TEAMS[next(TEAMS.length)]));
          await people.batch({ upsert: moving });
        } else {
          const before = full.snapshot;
          if (!before || !before.sections.length) continue;
          try {
            const update = await full.toggle(next(before.sections.length));
            checkApplies(update, before, `${context} toggle`);
            toggles++;
          } catch (e) {
            // The writes before it moved that index to another section: nothing changed.
            if (!(e instanceof StaleError)) throw e;
            assert.equal(full.snapshot, before, context);
          }
        }
      }
      const before = full.snapshot;
      const update = await full.sync();
      assert.equal(update.changes.reload, false, `${context}: a small change is animated, not reloaded`);
      checkApplies(update, before, context);
      while (await full.loadNext());     // sections shown by a toggle come with a page of rows; load the rest
      const fresh = await list.mirror({ view: full.view, pageSize: 50 }).reload({ rows: Infinity });
      assert.deepEqual(shape(full.snapshot), shape(fresh.snapshot), context);

      const partialUpdate = await partial.sync();
      const all = await list.mirror({ pageSize: 50 }).reload({ rows: Infinity });
      assert.deepEqual(partialUpdate.snapshot.sections.map((s) => s.section), all.snapshot.sections.map((s) => s.section), context);
      partialUpdate.snapshot.sections.forEach((s, n) => {
        assert.equal(s.rows.length, all.snapshot.sections[n].rows.length, context);
        s.rows.forEach((row, r) => { if (row) assert.deepEqual(row, all.snapshot.sections[n].rows[r], `${context} partial ${s.section.key} row ${r}`); });
      });
    }
    assert.ok(toggles > 0 && loads > 0, `seed ${seed}: toggles ${toggles}, loads ${loads}`);
  }
});

test('every endpoint, and problems as SectionalError', async () => {
  await reset();
  await people.batch({ upsert: [person('p1', 'Ada', 'Design'), person('p2', 'Bob', 'Design'), person('p3', 'Cy', 'Eng'), person('p4', 'bot-1', 'Eng')] });
  const { lists } = await client.lists();
  assert.deepEqual(lists.map((l) => l.name), ['people', 'crew']);
  const o = await list.outline();
  assert.deepEqual(o.sections.map((s) => s.key), ['pinned', 'Design', 'Eng']);
  const ids = [];
  for await (const page of list.pages({ size: 2 })) ids.push(...page.sections.flatMap((s) => s.rows.map((r) => r.id)));
  assert.deepEqual(ids, ['me', 'p1', 'p2', 'p3', 'p4']);
  const range = await list.rows(2, { start: 1, count: 3 });
  assert.deepEqual(range.section.rows.map((r) => r.accessibilityIdentifier), ['cell_2_1']);
  assert.deepEqual((await list.sectionsOfType('team')).sections, [1, 2]);
  assert.equal((await list.indexPath('team', 'bot')).row.id, 'p4');
  assert.equal((await list.rowByTag(3)).row.id, 'p1');
  assert.deepEqual((await list.rowById('p2')).indexPath, { section: 1, row: 1 });
  assert.deepEqual((await list.createView()).hidden, ['Archived'], "a view made without keys starts from the definition's defaults");
  const view = await list.createView(['Eng']);
  assert.deepEqual((await list.view(view.view)).hidden, ['Eng']);
  assert.equal((await list.setHidden(false, 2, view.view)).section.hidden, false);
  assert.equal((await list.toggle(2, view.view)).section.hidden, true);
  const since = o.version;
  const written = await people.put('p5', person('p5', 'Dee', 'Design'));
  assert.ok(written.version > since, 'a write answers the version holding it');
  const changes = await list.changes(since);
  assert.deepEqual(changes.rows.inserted, [{ section: 1, row: 2 }]);
  assert.equal(changes.reload, false);
  assert.equal((await people.get('p5')).name, 'Dee');
  assert.equal((await people.records({ pageSize: 2 })).records.length, 2);
  const patched = await people.patch('p5', { email: null, tags: { vip: true } });
  assert.deepEqual(patched.record, { id: 'p5', name: 'Dee', team: 'Design', tags: { vip: true } }, 'null removes, objects merge');
  assert.ok(patched.version > written.version);
  const batched = await people.batch({ patch: [{ id: 'p5', tags: { vip: null, new: 1 } }], delete: ['p4'] });
  assert.deepEqual([batched.patched, batched.deleted, batched.version], [1, 1, patched.version + 1]);
  assert.deepEqual((await people.get('p5')).tags, { new: 1 });
  await list.deleteView(view.view);

  const problems = [
    [() => client.list('nope').outline(), 'list-not-found', 404],
    [() => list.rowByTag(999), 'tag-not-found', 404],
    [() => list.rowById('nobody'), 'row-not-found', 404],
    [() => list.page({ token: 'garbage' }), 'invalid-page-token', 400],
    [() => list.changes(batched.version + 1000), 'invalid-version', 400],   // ahead of the list
    [() => list.view(view.view), 'view-not-found', 404],
    [() => people.get('nobody'), 'record-not-found', 404],
    [() => people.patch('nobody', { name: 'X' }), 'record-not-found', 404],
  ];
  for (const [call, slug, status] of problems) {
    await assert.rejects(call, (e) => e instanceof SectionalError && e.slug === slug && e.status === status && e.detail !== '', slug);
  }
});

test('a client reading at a version sends it: a write\'s is answered at once, one never made is 503 not-caught-up', async () => {
  await reset();
  const { version } = await people.put('p1', person('p1', 'Ada', 'Design'));
  const reader = client.readingAtLeast(version);
  assert.equal(reader.minVersion, version);
  assert.equal(reader.readingAtLeast(1).minVersion, version, 'the highest asked for stays');
  assert.ok((await reader.list('people').outline()).version >= version);
  assert.equal((await reader.collection('people').get('p1')).name, 'Ada');
  await assert.rejects(() => client.readingAtLeast(version + 1000).list('people').outline(),
    (e) => e instanceof SectionalError && e.slug === 'not-caught-up' && e.status === 503);
  assert.equal(client.minVersion, undefined, 'the client it was made from is unchanged');
  // A delete says its version too (its answer has no body).
  const deleted = await people.delete('p1');
  assert.ok(deleted > version, `the delete's version ${deleted}`);
  assert.ok((await client.readingAtLeast(deleted).list('people').outline()).version >= deleted);
});

test('a batch on expectedVersions is refused whole while one fails, and made when all hold', async () => {
  await reset();
  const { version } = await people.put('p1', person('p1', 'Ada', 'Design'));
  await assert.rejects(() => people.batch({ upsert: [person('p2', 'Bo', 'Eng')], expectedVersions: { p1: version + 1, p2: 0 } }),
    (e) => e instanceof SectionalError && e.slug === 'precondition-failed' && e.status === 412
      && JSON.stringify(e.ids) === '["p1"]');
  await assert.rejects(() => people.get('p2'), (e) => e instanceof SectionalError && e.slug === 'record-not-found');
  const made = await people.batch({ upsert: [person('p2', 'Bo', 'Eng')], expectedVersions: { p1: version, p2: 0 } });
  assert.equal(made.upserted, 1);
});

test('a search is a list of its own, and its mirror follows its batch updates', async () => {
  await reset();
  await people.batch({ upsert: [person('p1', 'Ada', 'Design'), person('p2', 'Adam', 'Eng'), person('p3', 'Bob', 'Design')] });
  const found = client.list('people', { search: { q: 'ADA' } });
  const ids = [];
  for await (const page of found.pages({ size: 1 })) ids.push(...page.sections.flatMap((s) => s.rows.map((r) => r.id)));
  assert.deepEqual(ids, ['me', 'p1', 'p2']);
  const design = client.list('people', { search: { q: 'ada', 'filter.team': 'Design' } });
  assert.deepEqual((await design.outline()).sections.map((s) => s.key), ['pinned', 'Design']);
  const mirror = found.mirror({ pageSize: 10 });
  const before = await mirror.reload();
  await people.put('p3', person('p3', 'Adaline', 'Design'));
  await people.put('p2', person('p2', 'Zed', 'Eng'));
  const after = await mirror.sync();
  assert.equal(after.changes.reload, false);
  checkApplies(after, before.snapshot, 'a search synced');
  assert.deepEqual(after.snapshot.sections.flatMap((s) => s.rows.map((r) => r && r.id)), ['me', 'p1', 'p3']);
  await assert.rejects(() => client.list('people', { search: { 'filter.email': 'x' } }).outline(),
    (e) => e instanceof SectionalError && e.slug === 'invalid-request' && e.status === 400);
});

test("a filter result's mirror hides and shows the result's sections, not the whole list's", async () => {
  await reset();
  await people.batch({ upsert: [person('p1', 'Ada', 'Design'), person('p2', 'Bob', 'Eng'), person('p3', 'Cy', 'Ops')] });
  const ops = client.list('people', { search: { 'filter.team': 'Ops' } });
  const mirror = ops.mirror({ pageSize: 10 });
  const before = await mirror.reload();
  assert.deepEqual(before.snapshot.sections.map((s) => s.section.key), ['pinned', 'Ops'], 'the whole list has Design at index 1');
  // Section 1 of the result is Ops: the view hides Ops, and the list did not move, so nothing is stale.
  const hidden = await mirror.toggle(1);
  assert.equal(hidden.snapshot.version, before.snapshot.version);
  assert.deepEqual(hidden.snapshot.sections.map((s) => [s.section.key, s.section.hidden]), [['pinned', false], ['Ops', true]]);
  const view = /** @type {string} */ (mirror.view);
  assert.deepEqual((await ops.view(view)).hidden, ['Archived', 'Ops'], "with the definition's default hidden sections");
  assert.deepEqual((await list.outline({ view })).sections.filter((s) => s.hidden).map((s) => s.key), ['Ops']);
  // Shown again, with its rows; the plain calls name the result's sections too.
  const shown = await mirror.setHidden(false, 1);
  assert.deepEqual(shown.snapshot.sections[1].rows.map((r) => r && r.id), ['p3']);
  assert.equal((await ops.setHidden(true, 1, view)).section.key, 'Ops');
  assert.equal((await ops.toggle(1, view)).section.key, 'Ops');
  assert.deepEqual((await ops.view(view)).hidden, ['Archived']);
  assert.deepEqual((await mirror.sync()).snapshot, (await ops.mirror({ view, pageSize: 10 }).reload()).snapshot);
  await ops.deleteView(view);
});

test("a view the mirror makes keeps the definition's default hidden sections not yet in the list", async () => {
  await reset();
  await people.batch({ upsert: [person('p1', 'Ada', 'Design'), person('p2', 'Bob', 'Eng')] });
  const mirror = list.mirror({ pageSize: 10 });
  await mirror.reload();
  await mirror.toggle(1);                                   // creates the mirror's view: Design hidden
  const view = /** @type {string} */ (mirror.view);
  assert.deepEqual((await list.view(view)).hidden, ['Archived', 'Design'], 'Archived too, although no record is in it yet');
  // An Archived record arrives: hidden through the mirror's view, as it is without a view.
  await people.put('p3', person('p3', 'Cy', 'Archived'));
  const synced = (await mirror.sync()).snapshot;
  assert.deepEqual(synced.sections.map((s) => [s.section.key, s.section.hidden]),
    [['pinned', false], ['Archived', true], ['Design', true], ['Eng', false]]);
  await list.deleteView(view);
});

test('updates() sees every version', async () => {
  await reset();
  const mirror = list.mirror();
  await mirror.reload();
  const controller = new AbortController();
  const seen = [];
  const reading = (async () => {
    for await (const update of mirror.updates({ signal: controller.signal, reconnectDelay: 200 })) seen.push(update.changes.to);
  })().catch((e) => { if (!controller.signal.aborted) throw e; });
  try {
    for (const [i, team] of ['Eng', 'Ops', 'Eng'].entries()) {
      await people.put(`p${i}`, person(`p${i}`, `Bo${i}`, team));
      const { version } = await list.outline();
      await until(() => seen.includes(version), () => `no update to version ${version}; saw ${seen}`);
    }
  } finally {
    controller.abort();
    await reading;
  }
});

test('a sync an event starts reads at least the version it announced', async () => {
  // Behind a load balancer the instance that answers may not have applied the version another
  // announced: asked for it, it waits for it (or answers 503, and the sync is tried again).
  await reset();
  /** @type {(string|null)[]} */
  const asked = [];
  const hooked = new SectionalClient(base, {
    fetch: async (input, init) => {
      if (String(input).includes('/changes')) asked.push(new Headers(init?.headers).get('Sectional-Min-Version'));
      return fetch(input, init);
    },
  });
  const mirror = hooked.list('people').mirror();
  await mirror.reload();
  const controller = new AbortController();
  /** @type {number[]} */
  const seen = [];
  const reading = (async () => {
    for await (const update of mirror.updates({ signal: controller.signal })) seen.push(update.changes.to);
  })().catch((e) => { if (!controller.signal.aborted) throw e; });
  try {
    const { version } = await people.put('p1', person('p1', 'Ada', 'Eng'));
    await until(() => seen.includes(version), () => `no update to version ${version}; saw ${seen}`);
    assert.ok(asked.includes(String(version)), `the sync's changes request asked for version ${version}: ${asked}`);
    assert.equal(await mirror.sync().then(() => asked.at(-1)), null, 'a sync of its own asks for no version');
  } finally {
    controller.abort();
    await reading;
  }
});

test('writes one sync took in start no more syncs', async () => {
  // Two writes land just before the first request of the sync a write started; their events
  // come after it. Before, each gave one more update, to the version the sync had reached.
  await reset();
  /** @type {(() => Promise<void>)|null} */
  let armed = null;
  const hooked = new SectionalClient(base, {
    fetch: async (input, init) => {
      const action = String(input).includes('/events') ? null : armed;
      if (action) {
        armed = null;
        await action();
      }
      return fetch(input, init);
    },
  });
  const mirror = hooked.list('people').mirror();
  await mirror.reload();
  const controller = new AbortController();
  /** @type {number[]} */
  const seen = [];
  let burst = false;
  const reading = (async () => {
    for await (const update of mirror.updates({ signal: controller.signal })) {
      seen.push(update.changes.to);
      burst ||= update.snapshot.sections.some((s) => s.section.key === 'Sales');
    }
  })().catch((e) => { if (!controller.signal.aborted) throw e; });
  try {
    armed = async () => {
      await people.put('p3', person('p3', 'Cy', 'Ops'));
      await people.put('p4', person('p4', 'Dee', 'Sales'));
    };
    await people.put('p2', person('p2', 'Bob', 'Eng'));
    await until(() => burst, () => `no update took in the burst; saw ${seen}`);
    const reached = (await list.outline()).version;
    await people.put('p5', person('p5', 'Eve', 'Eng'));
    const after = (await list.outline()).version;
    await until(() => seen.includes(after), () => `no update to version ${after}; saw ${seen}`);
    assert.deepEqual(seen, [reached, after], 'one update for the burst, one for the write after it');
  } finally {
    controller.abort();
    await reading;
  }
});

test('the server serves this module at /sectional.mjs', async () => {
  const response = await fetch(`${base}/sectional.mjs`);
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') || '', /^text\/javascript/);
  assert.equal(await response.text(), await readFile(new URL('../sectional.mjs', import.meta.url), 'utf8'));
  const tag = response.headers.get('etag');
  assert.ok(tag, 'the module carries an entity tag');
  const again = await fetch(`${base}/sectional.mjs`, { headers: { 'If-None-Match': tag } });
  assert.equal(again.status, 304);
});
