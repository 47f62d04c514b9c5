// The shapes of what the server sends and of what a ListMirror holds, as JSDoc typedefs (types
// only: this module exports no values; sectional.mjs re-exports every type by name).

/** @typedef {{section: number, row: number}} IndexPath */
/** @typedef {{location: number, length: number}} TagRange */
/**
 * @typedef {{id: string, type: string, indexPath: IndexPath, tag: TagRange, title: string,
 *   subtitle?: string, detail?: string, icon?: string, badge?: string, action?: string,
 *   height: number, accessibilityIdentifier?: string, image?: string,
 *   accessory?: 'disclosure'|'checkmark'|'detail'|'toggle', enabled?: boolean, value?: boolean,
 *   actions?: SwipeAction[], data?: Object<string, any>}} Row
 */
/** @typedef {{id: string, title: string, style: 'default'|'destructive'}} SwipeAction */
/** @typedef {{title?: string, height?: number, accessibilityIdentifier?: string}} Supplementary */
/**
 * A section without its rows; `header` and `footer` are absent (never `null`) when it has none.
 * @typedef {{index: number, key: string, type: string, title: string, icon?: string,
 *   header?: Supplementary, footer?: Supplementary,
 *   insets?: {top: number, left: number, bottom: number, right: number}, lineSpacing?: number,
 *   hidden: boolean, rowCount: number, totalRowCount: number, firstTag: number,
 *   accessibility?: {identifier: string, options: string[]}}} Section
 */
/** @typedef {Section & {rows: Row[], rowOffset?: number}} SectionWithRows */
/**
 * @typedef {{list: string, title: string, version: number, sectionCount: number, rowCount: number,
 *   totalRowCount: number, tagCount: number, sections: Section[]}} Outline
 */
/**
 * @typedef {{list: string, version: number, sections: SectionWithRows[], nextPageToken?: string,
 *   itemsBefore: number, itemsAfter: number}} Page
 */
/** @typedef {{list: string, version: number, section: SectionWithRows}} SectionRange */
/** @typedef {{list: string, version: number, sections: number[]}} SectionIndexes */
/** @typedef {{list: string, version: number, tag?: number, indexPath: IndexPath, hidden: boolean, row: Row}} RowLookUp */
/** @typedef {{view: string, list: string, hidden: string[]}} ViewState */
/** @typedef {{list: string, version: number, view: string, section: Section}} ViewSection */
/**
 * A list version from the event stream. `firstOnConnection`: the first event of its connection (the
 * stream's first, or the first after a reconnect), which says where the list is now whatever was
 * heard before — a server that went back (a database put back) shows it only this way.
 * @typedef {{list: string, version: number, firstOnConnection: boolean}} VersionEvent
 */
/** @typedef {{from: number, to: number}} SectionMove */
/** @typedef {{from: IndexPath, to: IndexPath, updated?: boolean}} RowMove */
/**
 * A batch update with UIKit `performBatchUpdates` semantics: `deleted`/`updated` use from-version
 * indexes, `inserted` to-version ones, moves go old → new. With `reload`, nothing is listed.
 * @typedef {{list: string, from: number, to: number, reload: boolean,
 *   sections: {deleted: number[], inserted: number[], moved: SectionMove[], updated: number[]},
 *   rows: {deleted: IndexPath[], inserted: IndexPath[], moved: RowMove[], updated: IndexPath[]}}} Changes
 */
/** @typedef {{name: string, title: string, version: number, sectionCount: number, rowCount: number}} ListSummary */
/** @typedef {() => (string|null|undefined|Promise<string|null|undefined>)} TokenProvider */
/**
 * One section of a mirror: the section, and for each visible row the row or `null` (a
 * placeholder). `pending` holds the row indexes the next sync loads.
 * @typedef {{section: Section, rows: (Row|null)[], pending: Set<number>}} MirrorSection
 */
/**
 * What a mirror holds at one version.
 * @typedef {{list: string, title: string, version: number, view: string|undefined, sections: MirrorSection[]}} Snapshot
 */
/**
 * A change a mirror made: the batch update to animate and the snapshot after it.
 * @typedef {{changes: Changes, snapshot: Snapshot}} MirrorUpdate
 */
