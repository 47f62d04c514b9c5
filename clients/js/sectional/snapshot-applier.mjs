// The snapshot applier: applyToSnapshot (a batch update applied to a mirror's snapshot), reposition
// (the held rows' positional fields set from their places), announce (the update a sync returns),
// and pathKey (an index path as a map key).

/** @typedef {import('./types.mjs').IndexPath} IndexPath */
/** @typedef {import('./types.mjs').Row} Row */
/** @typedef {import('./types.mjs').Outline} Outline */
/** @typedef {import('./types.mjs').Changes} Changes */
/** @typedef {import('./types.mjs').Snapshot} Snapshot */

/**
 * @param {IndexPath} p
 */
export const pathKey = (p) => `${p.section}:${p.row}`;

/**
 * Applies a batch update to a snapshot (UIKit semantics), taking the sections from the outline
 * at the update's `to` version. Rows it cannot know (inserted, updated, or whose positional fields
 * cannot be derived) become pending. Throws when the update does not fit (the caller reloads).
 * @param {Changes} changes @param {Snapshot} old @param {Outline} outline @param {number} pageSize
 * @returns {{snapshot: Snapshot, waiting: Map<string, {from: IndexPath, moved: boolean}>}}
 */
export function applyToSnapshot(changes, old, outline, pageSize) {
  const { sections: secs, rows } = changes;
  const sDel = new Set(secs.deleted);
  const sMoves = new Map(secs.moved.map((m) => [m.from, m.to]));
  /** @type {Map<number, number|null>} */
  const placed = new Map(secs.moved.map((m) => [m.to, m.from]));
  for (const i of secs.inserted) placed.set(i, null);
  const survivors = old.sections.map((_, i) => i).filter((i) => !sDel.has(i) && !sMoves.has(i));
  const count = survivors.length + sMoves.size + secs.inserted.length;
  if (count !== outline.sections.length) throw new Error(`section count ${count} != ${outline.sections.length}`);
  /** @type {(number|null)[]} */
  const layout = [];
  for (let n = 0, k = 0; n < count; n++) {
    const o = placed.has(n) ? placed.get(n) : survivors[k++];
    if (o === undefined) throw new Error('section layout');
    layout.push(o);
  }
  /**
   * @param {IndexPath} p
   */
  const oldRowExists = (p) => !sDel.has(p.section) && old.sections[p.section] && p.row >= 0 && p.row < old.sections[p.section].rows.length;
  for (const p of [...rows.deleted, ...rows.updated, ...rows.moved.map((m) => m.from)]) {
    if (!oldRowExists(p)) throw new Error(`old row ${pathKey(p)} out of range`);
  }
  const removed = new Set([...rows.deleted, ...rows.moved.map((m) => m.from)].map(pathKey));
  if (removed.size !== rows.deleted.length + rows.moved.length) throw new Error('a row is removed twice');
  const updated = new Set(rows.updated.map(pathKey));
  /** @typedef {{row: Row|null, pending: boolean}} Slot */
  /** @type {Map<string, {slot: Slot|null, from?: IndexPath}>} */
  const arriving = new Map(rows.inserted.map((p) => [pathKey(p), { slot: null }]));
  for (const m of rows.moved) {
    if (arriving.has(pathKey(m.to))) throw new Error(`new row ${pathKey(m.to)} filled twice`);
    const from = old.sections[m.from.section];
    // Only a loaded row is fetched again: a placeholder stays one (a batch that changed 900 rows
    // nobody scrolled to sent 900 requests, every other operation waiting).
    const row = from.rows[m.from.row];
    arriving.set(pathKey(m.to), { slot: { row, pending: from.pending.has(m.from.row) || (!!m.updated && row !== null) }, from: m.from });
  }
  /** @type {Map<string, {from: IndexPath, moved: boolean}>} */
  const waiting = new Map();
  const sections = layout.map((o, n) => {
    const section = outline.sections[n];
    if (o === null) {
      const pending = new Set([...Array(Math.min(section.rowCount, pageSize)).keys()]);
      return { section, rows: /** @type {(Row|null)[]} */ (new Array(section.rowCount).fill(null)), pending };
    }
    const before = old.sections[o];
    if (before.section.key !== section.key) throw new Error(`section ${n} is ${section.key}, not ${before.section.key}`);
    if (before.section.hidden !== section.hidden) throw new Error(`section ${section.key} was shown or hidden elsewhere`);
    /** @type {{slot: Slot, oldIndex: number}[]} */
    const keep = [];
    before.rows.forEach((row, r) => {
      if (removed.has(pathKey({ section: o, row: r }))) return;
      keep.push({ slot: { row, pending: before.pending.has(r) || (row !== null && updated.has(pathKey({ section: o, row: r }))) }, oldIndex: r });
    });
    const incoming = [...arriving.keys()].filter((k) => k.startsWith(`${n}:`)).length;
    const size = keep.length + incoming;
    if (size !== section.rowCount) throw new Error(`section ${section.key} has ${size} rows, not ${section.rowCount}`);
    /** @type {Slot[]} */
    const slots = [];
    /** @type {boolean[]} */
    const clean = [];
    let stillClean = true, k = 0;
    for (let r = 0; r < size; r++) {
      let updatedHere = false;
      const arrival = arriving.get(pathKey({ section: n, row: r }));
      if (arrival) {
        stillClean = false;
        const slot = arrival.slot || { row: null, pending: true };
        if (arrival.from && !slot.row && slot.pending) waiting.set(pathKey({ section: n, row: r }), { from: arrival.from, moved: true });
        slots.push(slot);
      } else {
        const kept = keep[k++];
        if (!kept) throw new Error(`section ${n} ran out of rows`);
        stillClean = stillClean && kept.oldIndex === r;
        const slot = kept.slot;
        // A clean row (nothing changed before it) moves its tag with the section's first tag.
        if (stillClean && slot.row) slot.row = { ...slot.row, tag: { ...slot.row.tag, location: slot.row.tag.location + section.firstTag - before.section.firstTag } };
        if (!slot.row && slot.pending) waiting.set(pathKey({ section: n, row: r }), { from: { section: o, row: kept.oldIndex }, moved: false });
        slots.push(slot);
        updatedHere = updated.has(pathKey({ section: o, row: kept.oldIndex }));
      }
      clean.push(stillClean);
      if (updatedHere) stillClean = false;      // its tag length may have changed: the rows after it are not clean
    }
    // Loaded rows whose tag or accessibility id cannot be worked out here are fetched again:
    // after a placeholder (unknown tag length), or whose id carries an index path that changed.
    let anchored = true;
    slots.forEach((slot, r) => {
      if (slot.pending) { anchored = true; return; }
      if (!slot.row) { anchored = false; return; }
      const moved = slot.row.indexPath.section !== n || slot.row.indexPath.row !== r;
      const needsTemplate = moved && slot.row.accessibilityIdentifier !== undefined && !section.accessibility;
      if (clean[r]) { anchored = true; if (needsTemplate) slot.pending = true; return; }
      if (!anchored || needsTemplate) { slot.pending = true; anchored = true; }
    });
    return { section, rows: slots.map((s) => s.row), pending: new Set(slots.flatMap((s, r) => (s.pending ? [r] : []))) };
  });
  return { snapshot: { list: old.list, title: outline.title, version: outline.version, view: old.view, sections }, waiting };
}

/**
 * Sets every held row's positional fields from its place (rows just fetched are right already).
 * @param {Snapshot} snapshot @param {Set<string>} fresh
 */
export function reposition(snapshot, fresh) {
  snapshot.sections.forEach((own, n) => {
    /** @type {number|null} */
    let location = own.section.firstTag;
    own.rows.forEach((row, r) => {
      if (!row) { location = null; return; }
      const path = { section: n, row: r };
      if (!fresh.has(pathKey(path))) {
        const next = { ...row, indexPath: path, tag: { ...row.tag, location: location ?? row.tag.location } };
        const acc = own.section.accessibility;
        if (acc && row.accessibilityIdentifier !== undefined && (row.indexPath.section !== n || row.indexPath.row !== r)) {
          next.accessibilityIdentifier = [acc.identifier, ...(acc.options.includes('section') ? [String(n)] : []),
            ...(acc.options.includes('row') ? [String(r)] : [])].join('_');
        }
        own.rows[r] = row = next;
      }
      location = row.tag.location + row.tag.length;
    });
  });
}

/**
 * The server's update plus the placeholders a sync loaded: updated where they stay, moves flagged.
 * @param {Changes} changes @param {Map<string, {from: IndexPath, moved: boolean}>} waiting @returns {Changes}
 */
export function announce(changes, waiting) {
  const out = { ...changes, rows: { ...changes.rows, updated: [...changes.rows.updated], moved: changes.rows.moved.map((m) => ({ ...m })) } };
  for (const [to, origin] of waiting) {
    if (origin.moved) {
      const move = out.rows.moved.find((m) => pathKey(m.to) === to);
      if (move) move.updated = true;
    } else if (!out.rows.updated.some((p) => pathKey(p) === pathKey(origin.from))) {
      out.rows.updated.push(origin.from);
    }
  }
  return out;
}
