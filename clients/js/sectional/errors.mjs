// The problems the client throws (SectionalError, StaleError), how long to wait after one before
// trying again (reconnectDelay), and sectionGone (a `404 section-not-found`).

/**
 * A problem answer (RFC 9457): `slug`, `status`, `title`, `detail`; `reload` when it says to read
 * the list again from its first page (`400 invalid-page-token` for a walk the list's definition
 * changed under).
 */
export class SectionalError extends Error {
  /**
   * @param {string} slug
   * @param {number} status
   * @param {string} title
   * @param {string} detail
   * @param {boolean} [reload]
   * @param {number} [version] the list's version the problem names: where the list is now, for a
   *   `412 precondition-failed` section change made after the list moved on
   * @param {string[]} [ids] the records the problem names: those whose expected version or
   *   existence did not hold, for a `412 precondition-failed` record or batch write
   * @param {string|null} [retryAfter] the answer's `Retry-After` (seconds or an HTTP date): how
   *   long the server asks a client to wait before trying again (a `503`)
   */
  constructor(slug, status, title, detail, reload = false, version = undefined, ids = undefined, retryAfter = null) {
    super(`${status} ${slug}: ${detail}`);
    this.name = 'SectionalError';
    this.slug = slug;
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.reload = reload;
    this.version = version;
    this.ids = ids;
    this.retryAfter = retryAfter;
  }

  /**
   * The server is away rather than refusing: `502`, `503` or `504` — the server's own `503`, or a
   * proxy in front of it (the nginx of a deployment answers `502` while every instance restarts).
   * Worth trying again later.
   * @returns {boolean}
   */
  get serverAway() { return this.status === 502 || this.status === 503 || this.status === 504; }

  /**
   * The problem a non-2xx answer carries (a body that is no problem still gives its status).
   * @param {number} status
   * @param {string} text
   * @param {string|null} [retryAfter]
   */
  static from(status, text, retryAfter = null) {
    try {
      const body = JSON.parse(text);
      if (body && typeof body.type === 'string') {
        return new SectionalError(body.type.split('/').pop() || body.type, status, body.title || '', body.detail || '',
          body.reload === true, typeof body.version === 'number' ? body.version : undefined,
          Array.isArray(body.ids) && body.ids.every((/** @type {unknown} */ id) => typeof id === 'string') ? body.ids : undefined,
          retryAfter);
      }
    } catch (_) { /* not JSON */ }
    return new SectionalError(`http-${status}`, status, '', text.slice(0, 300), false, undefined, undefined, retryAfter);
  }
}

/**
 * A load (or a toggle) found the list at another version than the mirror's, or the mirror's view
 * changed elsewhere or gone (`server` then the mirror's version): sync first.
 */
export class StaleError extends Error {
  /**
   * @param {number} mirror
   * @param {number} server
   */
  constructor(mirror, server) {
    super(`the mirror is at version ${mirror}, the list at ${server}: sync first`);
    this.name = 'StaleError';
    this.mirror = mirror;
    this.server = server;
  }
}

/**
 * How long an event stream waits before reconnecting, in ms: what a 503's `Retry-After` says
 * (seconds, or an HTTP date counted from `now`; from 1 s to 5 minutes: a proxy's `Retry-After: 0`,
 * or a date a clock running ahead has passed, made reconnects back to back for as long as the 503s
 * lasted) when it gave one; else `fixed` when set; else the server's `retry`, doubled per failure
 * in a row while it stays away (to 30 s).
 * @param {{retryAfter?: string|null, fixed?: number, retry: number, failures: number, now?: number}} o
 * @returns {number}
 */
export function reconnectDelay(o) {
  const field = (o.retryAfter ?? '').trim();
  const asked = (/** @type {number} */ ms) => Math.min(Math.max(ms, 1000), 300000);
  if (/^\d+$/.test(field)) return asked(Number(field) * 1000);
  const date = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(field) ? Date.parse(field) : NaN;
  // A field shaped as a date that is none (`Fri, 32 Nov …`) is ignored, as one of any other shape.
  if (Number.isFinite(date)) return asked(date - (o.now ?? Date.now()));
  return Math.max(0, Math.min(o.fixed ?? o.retry * 2 ** Math.min(o.failures, 4), 30000));
}

/**
 * A `404 section-not-found`: the section index read names no section (now).
 * @param {unknown} e
 */
export const sectionGone = (e) => e instanceof SectionalError && e.status === 404 && e.slug === 'section-not-found';
