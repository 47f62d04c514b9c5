// Type-checked with the client (`tsc --checkJs --strict`: scripts/js-client-test.sh, `make lint`),
// never run: the client's JSDoc types must take the server's answers as they are. A section
// without a header or footer leaves them out (docs/api.md: "absent, never `null`").

/** @typedef {import('../sectional.mjs').Section} Section */

/** @type {Section} a section as the server sends one without header and footer */
export const bare = { index: 0, key: 'pinned', type: '', title: '', hidden: false, rowCount: 1, totalRowCount: 1, firstTag: 0 };

/**
 * A section's footer title, `''` without one.
 * @param {Section} section
 */
export const footerTitle = (section) => (section.footer === undefined ? '' : section.footer.title ?? '');
