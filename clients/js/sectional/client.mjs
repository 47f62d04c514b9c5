// SectionalClient: a client of a Sectional server (its address, the token, the requests); it
// hands out one list's API (list.mjs) and one record collection's (collection.mjs).

import { SectionalError } from './errors.mjs';
import { unlessAborted } from './abortable.mjs';
import { SectionalList } from './list.mjs';
import { SectionalCollection } from './collection.mjs';

/** @typedef {import('./types.mjs').ListSummary} ListSummary */
/** @typedef {import('./types.mjs').TokenProvider} TokenProvider */

/**
 * A client of a Sectional server. Every request carries `Authorization: Bearer <token>` when the
 * token (or the token provider, asked before each request so an app can refresh it) gives one.
 *
 * Read-your-writes behind a load balancer (several instances on one PostgreSQL database):
 * `client.readingAtLeast(written.version)` is a client whose reads are answered only at that
 * version or later (`Sectional-Min-Version`); the instance that gets one waits for it (up to a
 * second, then `503 not-caught-up`).
 */
export class SectionalClient {
  /**
   * @param {string} baseURL the server, e.g. `https://lists.example.com` (`''`: this page's origin)
   * @param {{token?: string, tokenProvider?: TokenProvider, fetch?: typeof fetch, minVersion?: number}} [options]
   */
  constructor(baseURL, options = {}) {
    this.baseURL = baseURL.replace(/\/+$/, '');
    const token = options.token;
    /** @type {TokenProvider} */
    this.tokenProvider = options.tokenProvider || (() => token);
    /** @type {typeof fetch} */
    this.fetch = options.fetch || ((input, init) => fetch(input, init));
    /** The version every read must be answered at, or later (`readingAtLeast`). @type {number|undefined} */
    this.minVersion = options.minVersion;
  }

  /**
   * This client, with reads answered at `version` or later (the highest asked for, when this one
   * asks already): a write's `version` (a record's, a batch's, a view change's
   * `Sectional-Version`), so that what reads it next sees it, whichever instance answers. For the
   * reads that follow a write: a mirror made from it for good would wait on every read of a
   * server that went back to an older database.
   * @param {number} version
   * @returns {SectionalClient}
   */
  readingAtLeast(version) {
    return new SectionalClient(this.baseURL, {
      tokenProvider: this.tokenProvider, fetch: this.fetch, minVersion: Math.max(this.minVersion ?? version, version),
    });
  }

  /**
   * One list's API; with `search`, every read of it is of that search and filter result, and its
   * views' section indexes are the result's (`{q: 'emi', 'filter.team': 'Design'}`: the query
   * parameters of its address).
   * @param {string} name
   * @param {{search?: Record<string, string>}} [o]
   */
  list(name, o = {}) { return new SectionalList(this, name, o.search); }

  /**
   * One record collection's API.
   * @param {string} name
   */
  collection(name) { return new SectionalCollection(this, name); }

  /**
   * The lists the caller may read.
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{lists: ListSummary[]}>}
   */
  lists(o = {}) { return this.request('GET', ['v1', 'lists'], { signal: o.signal }); }

  /**
   * A URL under the base: path segments (each encoded) and a query (undefined values left out).
   * @param {string[]} segments
   * @param {Record<string, string|number|undefined|null>} [query]
   */
  url(segments, query = {}) {
    const pairs = Object.entries(query).filter(([, v]) => v !== undefined && v !== null)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`);
    return `${this.baseURL}/${segments.map(encodeURIComponent).join('/')}${pairs.length ? `?${pairs.join('&')}` : ''}`;
  }

  /**
   * Headers with the token, if any.
   * @param {Record<string, string>} [extra]
   */
  async headers(extra = {}) {
    /** @type {Record<string, string>} */
    const headers = { Accept: 'application/json', ...extra };
    const token = await this.tokenProvider();
    if (token) headers.Authorization = `Bearer ${token}`;
    return headers;
  }

  /**
   * Sends a request; a non-2xx answer is thrown as a SectionalError; 204 gives `null`. When
   * `signal` aborts, the request is cancelled (`fetch`'s signal) and this rejects at once with the
   * signal's reason, as `fetch` does: an `AbortError` DOMException for `abort()`, a `TimeoutError`
   * for `AbortSignal.timeout(ms)`. A signal aborted already sends nothing. There is no timeout of
   * the client's own (the Swift client leaves it to its URLSession): `AbortSignal.timeout(ms)` gives one.
   * @param {string} method
   * @param {string[]} segments
   * `version`: resolve the answer's `Sectional-Version` (a write's, 0 without one) instead of its body.
   * @param {{query?: Record<string, string|number|undefined|null>, body?: unknown, contentType?: string,
   *   signal?: AbortSignal, version?: boolean}} [options]
   * @returns {Promise<any>}
   */
  request(method, segments, options = {}) {
    const signal = options.signal;
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    // Raced with the signal too, so neither a token provider nor a `fetch` option that ignores
    // the signal keeps the caller waiting once it aborts.
    return unlessAborted(this.#send(method, segments, options), signal);
  }

  /**
   * `request` without the race: the token, then `fetch` with the signal.
   * @param {string} method
   * @param {string[]} segments
   * @param {{query?: Record<string, string|number|undefined|null>, body?: unknown, contentType?: string,
   *   signal?: AbortSignal, version?: boolean}} options
   * @returns {Promise<any>}
   */
  async #send(method, segments, options) {
    const init = /** @type {RequestInit} */ ({ method, cache: 'no-cache', signal: options.signal });
    if (options.body !== undefined) {
      init.body = JSON.stringify(options.body);
      init.headers = await this.headers({ 'Content-Type': options.contentType || 'application/json' });
    } else {
      init.headers = await this.headers(method === 'GET' && this.minVersion !== undefined
        ? { 'Sectional-Min-Version': String(this.minVersion) } : {});
    }
    const response = await this.fetch(this.url(segments, options.query), init);
    const text = await response.text();
    if (!response.ok) throw SectionalError.from(response.status, text, response.headers.get('Retry-After'));
    if (options.version) return Number(response.headers.get('Sectional-Version') ?? 0) || 0;
    if (response.status === 204 || text === '') return null;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new SectionalError('unreadable-answer', response.status, 'Unreadable answer', String(e));
    }
  }
}
