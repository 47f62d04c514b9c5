// emptyChanges: a batch update that lists nothing (a reload, or a toggle that changed nothing).

/** @typedef {import('./types.mjs').Changes} Changes */

/**
 * @param {string} list @param {number} from @param {number} to @param {boolean} reload
 * @returns {Changes}
 */
export function emptyChanges(list, from, to, reload) {
  return { list, from, to, reload,
    sections: { deleted: [], inserted: [], moved: [], updated: [] },
    rows: { deleted: [], inserted: [], moved: [], updated: [] } };
}
