// Sectional's JavaScript client: an ES module without dependencies, for browsers and Node 18+.
// The same surface as the Swift package: a client, one list's API, record collections, and
// ListMirror (a client-side copy of a list that applies the server's batch updates).
// Types are JSDoc, checked with `tsc --noEmit --allowJs --checkJs`.
//
// This module is the entry point: it re-exports the client's parts from the modules in sectional/
// (served beside it, at /sectional/<name>.mjs), one thing each:
//   errors.mjs            SectionalError, StaleError, reconnectDelay
//   abortable.mjs         waits an AbortSignal ends early
//   client.mjs            SectionalClient
//   list.mjs              SectionalList (one list's API)
//   collection.mjs        SectionalCollection (one record collection's API)
//   mirror.mjs            ListMirror (its operations, one at a time, and their work)
//   snapshot-applier.mjs  applyToSnapshot: a batch update applied to a mirror's snapshot
//   empty-changes.mjs     a batch update that lists nothing
//   types.mjs             the JSDoc types, re-exported here by name

export { SectionalError, StaleError, reconnectDelay } from './sectional/errors.mjs';
export { SectionalClient } from './sectional/client.mjs';
export { SectionalList } from './sectional/list.mjs';
export { SectionalCollection } from './sectional/collection.mjs';
export { ListMirror } from './sectional/mirror.mjs';
export { applyToSnapshot } from './sectional/snapshot-applier.mjs';

/** @typedef {import('./sectional/types.mjs').IndexPath} IndexPath */
/** @typedef {import('./sectional/types.mjs').TagRange} TagRange */
/** @typedef {import('./sectional/types.mjs').Row} Row */
/** @typedef {import('./sectional/types.mjs').SwipeAction} SwipeAction */
/** @typedef {import('./sectional/types.mjs').Supplementary} Supplementary */
/** @typedef {import('./sectional/types.mjs').Section} Section */
/** @typedef {import('./sectional/types.mjs').SectionWithRows} SectionWithRows */
/** @typedef {import('./sectional/types.mjs').Outline} Outline */
/** @typedef {import('./sectional/types.mjs').Page} Page */
/** @typedef {import('./sectional/types.mjs').SectionRange} SectionRange */
/** @typedef {import('./sectional/types.mjs').SectionIndexes} SectionIndexes */
/** @typedef {import('./sectional/types.mjs').RowLookUp} RowLookUp */
/** @typedef {import('./sectional/types.mjs').ViewState} ViewState */
/** @typedef {import('./sectional/types.mjs').ViewSection} ViewSection */
/** @typedef {import('./sectional/types.mjs').VersionEvent} VersionEvent */
/** @typedef {import('./sectional/types.mjs').SectionMove} SectionMove */
/** @typedef {import('./sectional/types.mjs').RowMove} RowMove */
/** @typedef {import('./sectional/types.mjs').Changes} Changes */
/** @typedef {import('./sectional/types.mjs').ListSummary} ListSummary */
/** @typedef {import('./sectional/types.mjs').TokenProvider} TokenProvider */
/** @typedef {import('./sectional/types.mjs').MirrorSection} MirrorSection */
/** @typedef {import('./sectional/types.mjs').Snapshot} Snapshot */
/** @typedef {import('./sectional/types.mjs').MirrorUpdate} MirrorUpdate */
