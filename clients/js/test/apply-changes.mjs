// The reference semantics of a `changes` answer (UIKit performBatchUpdates), for the tests: the
// project's applier ported to JavaScript, with its content mode.
//
// An outline is [{key, rows: [item]}] as seen through one view. Deletes and updates address the
// old outline, inserts the new one, moves go old → new. Rows of inserted sections come from `next`.
// Content mode: items are "id|content" (null: not loaded); a row listed in `updated`, or moved with
// `updated: true`, takes the item at its new place in `next`; every other row keeps its old item.
// Throws when the answer is malformed or the result differs from `next`.

const key = (p) => `${p.section}:${p.row}`;

export function applyChanges(old, changes, next, contentMode = false) {
  if (changes.reload) return next.map((s) => ({ key: s.key, rows: [...s.rows] }));
  const { sections: secs, rows } = changes;
  const sDel = new Set(secs.deleted);
  const sMoves = new Map(secs.moved.map((m) => [m.from, m.to]));
  const sIns = new Set(secs.inserted);
  for (const f of sMoves.keys()) if (sDel.has(f)) throw new Error('a section is both deleted and moved from');
  for (const t of sMoves.values()) if (sIns.has(t)) throw new Error('a section is both inserted and moved to');
  for (const u of secs.updated) if (sDel.has(u) || sMoves.has(u)) throw new Error('a section is updated and also deleted or moved');
  for (const i of [...sDel, ...sMoves.keys(), ...secs.updated]) if (!(i >= 0 && i < old.length)) throw new Error(`old section index ${i} out of range`);
  const survivors = old.map((_, i) => i).filter((i) => !sDel.has(i) && !sMoves.has(i));
  const count = survivors.length + sMoves.size + sIns.size;
  for (const i of [...sIns, ...sMoves.values()]) if (!(i >= 0 && i < count)) throw new Error(`new section index ${i} out of range`);
  const placed = new Map([...[...sMoves].map(([f, t]) => [t, f]), ...[...sIns].map((i) => [i, null])]);
  const layout = [];
  for (let n = 0, k = 0; n < count; n++) {
    const o = placed.has(n) ? placed.get(n) : survivors[k++];
    if (o === undefined) throw new Error('new section index filled twice');
    layout.push(o);
  }
  const moves = rows.moved.map((m) => [m.from, m.to, !!m.updated]);
  for (const p of [...rows.deleted, ...rows.updated, ...moves.map((m) => m[0])]) {
    if (sDel.has(p.section)) throw new Error(`row ${key(p)} listed inside deleted section`);
    if (!(p.section >= 0 && p.section < old.length && p.row >= 0 && p.row < old[p.section].rows.length)) throw new Error(`old index path ${key(p)} out of range`);
  }
  for (const p of [...rows.inserted, ...moves.map((m) => m[1])]) {
    if (!(p.section >= 0 && p.section < count)) throw new Error(`new index path ${key(p)} out of range`);
    if (layout[p.section] === null) throw new Error(`row ${key(p)} listed inside inserted section`);
  }
  const removed = new Set([...rows.deleted, ...moves.map((m) => m[0])].map(key));
  if (removed.size !== rows.deleted.length + moves.length) throw new Error('an old index path is deleted or moved twice');
  const updated = new Set(rows.updated.map(key));
  for (const u of updated) if (removed.has(u)) throw new Error('an updated row is also deleted or moved');
  const arriving = new Map(rows.inserted.map((p) => [key(p), { kind: 'insert' }]));
  for (const [f, t, upd] of moves) {
    if (arriving.has(key(t))) throw new Error(`new index path ${key(t)} filled twice`);
    arriving.set(key(t), { kind: 'move', item: old[f.section].rows[f.row], upd });
  }
  const newItem = (n, r) => (next[n] && r < next[n].rows.length ? next[n].rows[r] : null);
  const result = layout.map((o, n) => {
    if (o === null) return { key: next[n] ? next[n].key : null, rows: next[n] ? [...next[n].rows] : [] };
    const keep = old[o].rows.map((item, r) => ({ item, upd: updated.has(key({ section: o, row: r })), r }))
      .filter(({ r }) => !removed.has(key({ section: o, row: r })));
    const incoming = [...arriving.keys()].filter((k) => k.startsWith(`${n}:`)).map((k) => Number(k.split(':')[1])).sort((a, b) => a - b);
    const size = keep.length + incoming.length;
    if (incoming.length && incoming[incoming.length - 1] >= size) throw new Error(`new row index out of range in section ${n}`);
    const out = [];
    for (let r = 0, k = 0; r < size; r++) {
      const a = arriving.get(`${n}:${r}`);
      if (a && a.kind === 'insert') out.push(newItem(n, r));
      else if (a) out.push(contentMode && a.upd ? newItem(n, r) : a.item);
      else {
        const { item, upd } = keep[k++];
        out.push(contentMode && upd ? newItem(n, r) : item);
      }
    }
    return { key: old[o].key, rows: out };
  });
  const got = JSON.stringify(result), want = JSON.stringify(next.map((s) => ({ key: s.key, rows: s.rows })));
  if (got !== want) throw new Error(`result differs from NEW:\n${got.slice(0, 600)}\n${want.slice(0, 600)}`);
  return result;
}
