// Sectional's JavaScript client: an ES module without dependencies, for browsers and Node 18+.
// The same surface as the Swift package: a client, one list's API, record collections, and
// ListMirror (a client-side copy of a list that applies the server's batch updates).
// Types are JSDoc, checked with `tsc --noEmit --allowJs --checkJs`.

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
/** @typedef {{list: string, version: number}} VersionEvent */
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
   */
  constructor(slug, status, title, detail, reload = false) {
    super(`${status} ${slug}: ${detail}`);
    this.name = 'SectionalError';
    this.slug = slug;
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.reload = reload;
  }

  /**
   * The problem a non-2xx answer carries (a body that is no problem still gives its status).
   * @param {number} status
   * @param {string} text
   */
  static from(status, text) {
    try {
      const body = JSON.parse(text);
      if (body && typeof body.type === 'string') {
        return new SectionalError(body.type.split('/').pop() || body.type, status, body.title || '', body.detail || '',
          body.reload === true);
      }
    } catch (_) { /* not JSON */ }
    return new SectionalError(`http-${status}`, status, '', text.slice(0, 300));
  }
}

/** A load found the list at another version than the mirror's: sync first. */
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
 * (seconds, or an HTTP date counted from `now`; at most 5 minutes) when it gave one; else `fixed`
 * when set; else the server's `retry`, doubled per failure in a row while it stays away (to 30 s).
 * @param {{retryAfter?: string|null, fixed?: number, retry: number, failures: number, now?: number}} o
 * @returns {number}
 */
export function reconnectDelay(o) {
  const field = (o.retryAfter ?? '').trim();
  if (/^\d+$/.test(field)) return Math.min(Number(field) * 1000, 300000);
  if (/^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(field)) {
    return Math.min(Math.max(Date.parse(field) - (o.now ?? Date.now()), 0), 300000);
  }
  return Math.min(o.fixed ?? o.retry * 2 ** Math.min(o.failures, 4), 30000);
}

/**
 * A `404 section-not-found`: the section index read names no section (now).
 * @param {unknown} e
 */
const sectionGone = (e) => e instanceof SectionalError && e.status === 404 && e.slug === 'section-not-found';

/**
 * @param {number} ms
 * @param {AbortSignal} [signal]
 */
const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined); }, { once: true });
});

/**
 * What `promise` settles with, unless `signal` aborts first: then it rejects with the signal's
 * reason (an `AbortError` DOMException for `abort()`), at once when it has aborted already.
 * `promise` runs on; its outcome is then dropped (handled, never an unhandled rejection).
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal} [signal]
 * @returns {Promise<T>}
 */
function unlessAborted(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(signal.reason);
  }
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason);
    signal.addEventListener('abort', abort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/**
 * A client of a Sectional server. Every request carries `Authorization: Bearer <token>` when the
 * token (or the token provider, asked before each request so an app can refresh it) gives one.
 */
export class SectionalClient {
  /**
   * @param {string} baseURL the server, e.g. `https://lists.example.com` (`''`: this page's origin)
   * @param {{token?: string, tokenProvider?: TokenProvider, fetch?: typeof fetch}} [options]
   */
  constructor(baseURL, options = {}) {
    this.baseURL = baseURL.replace(/\/+$/, '');
    const token = options.token;
    /** @type {TokenProvider} */
    this.tokenProvider = options.tokenProvider || (() => token);
    /** @type {typeof fetch} */
    this.fetch = options.fetch || ((input, init) => fetch(input, init));
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
   * @param {{query?: Record<string, string|number|undefined|null>, body?: unknown, contentType?: string,
   *   signal?: AbortSignal}} [options]
   * @returns {Promise<any>}
   */
  request(method, segments, options = {}) {
    const signal = options.signal;
    if (signal && signal.aborted) return Promise.reject(signal.reason);
    // Raced with the signal too, so neither a token provider nor a `fetch` option that ignores
    // the signal keeps the caller waiting once it aborts.
    return unlessAborted(this.send(method, segments, options), signal);
  }

  /**
   * `request` without the race: the token, then `fetch` with the signal.
   * @param {string} method
   * @param {string[]} segments
   * @param {{query?: Record<string, string|number|undefined|null>, body?: unknown, contentType?: string,
   *   signal?: AbortSignal}} options
   * @returns {Promise<any>}
   */
  async send(method, segments, options) {
    const init = /** @type {RequestInit} */ ({ method, cache: 'no-cache', signal: options.signal });
    if (options.body !== undefined) {
      init.body = JSON.stringify(options.body);
      init.headers = await this.headers({ 'Content-Type': options.contentType || 'application/json' });
    } else {
      init.headers = await this.headers();
    }
    const response = await this.fetch(this.url(segments, options.query), init);
    const text = await response.text();
    if (!response.ok) throw SectionalError.from(response.status, text);
    if (response.status === 204 || text === '') return null;
    try {
      return JSON.parse(text);
    } catch (e) {
      throw new SectionalError('unreadable-answer', response.status, 'Unreadable answer', String(e));
    }
  }
}

/**
 * One list's API. Every read takes an optional view id, and every request an optional `signal`
 * (an AbortSignal that cancels it: see `SectionalClient.request`).
 */
export class SectionalList {
  /**
   * @param {SectionalClient} client
   * @param {string} name
   * @param {Record<string, string>} [search] `q` and `filter.FIELD` parameters every read and view
   *   request carries
   */
  constructor(client, name, search = {}) {
    this.client = client;
    this.name = name;
    this.search = search;
  }

  /**
   * @param {string[]} [more]
   */
  path(more = []) { return ['v1', 'lists', this.name, ...more]; }

  /**
   * A list read: GET with the list's search and filters.
   * @param {string[]} more @param {Record<string, string|number|undefined|null>} [query]
   * @param {AbortSignal} [signal]
   */
  read(more, query = {}, signal) {
    return this.client.request('GET', this.path(more), { query: { ...query, ...this.search }, signal });
  }

  /**
   * A view request, with the list's search and filters as its reads: a section index then names a
   * section of the result.
   * @param {string} method @param {string[]} more @param {unknown} [body] @param {AbortSignal} [signal]
   */
  viewRequest(method, more, body, signal) {
    return this.client.request(method, this.path(['views', ...more]), { query: this.search, body, signal });
  }

  /**
   * The outline: every section, no rows.
   * @param {{view?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<Outline>}
   */
  outline(o = {}) { return this.read([], { view: o.view }, o.signal); }

  /**
   * One page of visible rows (`size` 0 or absent: the server's default).
   * @param {{size?: number, token?: string, view?: string, signal?: AbortSignal}} [o] @returns {Promise<Page>}
   */
  page(o = {}) {
    return this.read(['rows'],
      { pageSize: o.size || undefined, pageToken: o.token, view: o.view }, o.signal);
  }

  /**
   * Every page, first to last, fetched as they are iterated (`signal` cancels each request).
   * @param {{size?: number, view?: string, signal?: AbortSignal}} [o] @returns {AsyncGenerator<Page, void, void>}
   */
  async *pages(o = {}) {
    /** @type {string|undefined} */
    let token;
    do {
      const page = await this.page({ ...o, token });
      token = page.nextPageToken;
      yield page;
    } while (token);
  }

  /**
   * Visible rows [start, start + count) of one section.
   * @param {number} index @param {{start?: number, count?: number, view?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<SectionRange>}
   */
  rows(index, o = {}) {
    return this.read(['sections', String(index), 'rows'],
      { start: o.start || 0, count: o.count, view: o.view }, o.signal);
  }

  /**
   * The indexes of every section of a type.
   * @param {string} type
   * @param {{view?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<SectionIndexes>}
   */
  sectionsOfType(type, o = {}) { return this.read(['sections'], { type, view: o.view }, o.signal); }

  /**
   * The first row of `rowType` in a section of `sectionType`.
   * @param {string} sectionType @param {string} rowType @param {{view?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<RowLookUp>}
   */
  indexPath(sectionType, rowType, o = {}) {
    return this.read(['index-path'], { sectionType, rowType, view: o.view }, o.signal);
  }

  /**
   * The row whose tag range holds `tag`.
   * @param {number} tag
   * @param {{view?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<RowLookUp>}
   */
  rowByTag(tag, o = {}) { return this.read(['tags', String(tag)], { view: o.view }, o.signal); }

  /**
   * The row with an id.
   * @param {string} id
   * @param {{view?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<RowLookUp>}
   */
  rowById(id, o = {}) { return this.read(['rows', id], { view: o.view }, o.signal); }

  /**
   * The batch update from version `since` to the current one.
   * @param {number} since @param {{view?: string, maxChanges?: number, signal?: AbortSignal}} [o]
   * @returns {Promise<Changes>}
   */
  async changes(since, o = {}) {
    const answer = await this.read(['changes'],
      { since, view: o.view, maxChanges: o.maxChanges }, o.signal);
    return { ...answer, ...(answer.reload ? emptyChanges(answer.list, answer.from, answer.to, true) : {}), reload: !!answer.reload };
  }

  /**
   * Creates a view hiding `hidden` (section keys); without them, the definition's default hidden sections.
   * @param {string[]} [hidden]
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<ViewState>}
   */
  createView(hidden, o = {}) { return this.viewRequest('POST', [], hidden ? { hidden } : {}, o.signal); }

  /**
   * A view's state.
   * @param {string} id
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<ViewState>}
   */
  view(id, o = {}) { return this.viewRequest('GET', [id], undefined, o.signal); }

  /**
   * Hides or shows a section in a view (`index`: of the search result, when the list has a search).
   * @param {boolean} hidden
   * @param {number} index
   * @param {string} view
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<ViewSection>}
   */
  setHidden(hidden, index, view, o = {}) {
    return this.viewRequest('PUT', [view, 'sections', String(index)], { hidden }, o.signal);
  }

  /**
   * Flips a section in a view (`index`: of the search result, when the list has a search).
   * @param {number} index
   * @param {string} view
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<ViewSection>}
   */
  toggle(index, view, o = {}) {
    return this.viewRequest('POST', [view, 'sections', String(index), 'toggle'], undefined, o.signal);
  }

  /**
   * Deletes a view.
   * @param {string} id
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<void>}
   */
  async deleteView(id, o = {}) { await this.viewRequest('DELETE', [id], undefined, o.signal); }

  /**
   * The list's versions as they happen, from its event stream (read with fetch, so the token is
   * sent). Reconnects with `Last-Event-ID` when the stream drops, after the server's `retry:`
   * (or `reconnectDelay` ms), or what a 503's `Retry-After` says (see `reconnectDelay`); ends when
   * `signal` aborts, or throws a problem other than 503. A connection on which nothing arrives for
   * `idleTimeout` ms (default 60000; the server sends a keep-alive comment every 15 s) is taken as
   * dead, as one that dropped: a peer that vanished without closing it (a lost network, a
   * proxy that holds it) would otherwise leave the stream waiting for good. (The Swift client's
   * stream gives up after the same 60 s.) Leaving a `for await` over it (break, return, throw)
   * closes the stream.
   * @param {{signal?: AbortSignal, reconnectDelay?: number, idleTimeout?: number}} [o]
   * @returns {AsyncGenerator<VersionEvent, void, void>}
   */
  async *events(o = {}) {
    /** @type {string|undefined} */
    let lastEventID;
    /** @type {string|null} */
    let retryAfter = null;
    let retry = 2000, failures = 0;
    // Ends the request when `o.signal` aborts, and when the generator is left early (finally).
    const own = new AbortController();
    const abort = () => own.abort();
    if (o.signal && o.signal.aborted) own.abort();
    if (o.signal) o.signal.addEventListener('abort', abort, { once: true });
    const idleTimeout = o.idleTimeout ?? 60000;
    try {
      while (!own.signal.aborted) {
        retryAfter = null;
        // This connection's: ended with the stream, and when nothing came for `idleTimeout` ms.
        const connection = new AbortController();
        const end = () => connection.abort();
        own.signal.addEventListener('abort', end, { once: true });
        /** @type {ReturnType<typeof setTimeout>|undefined} */
        let idle;
        const heard = () => { clearTimeout(idle); idle = setTimeout(end, idleTimeout); };
        try {
          /** @type {Record<string, string>} */
          const extra = { Accept: 'text/event-stream' };
          if (lastEventID !== undefined) extra['Last-Event-ID'] = lastEventID;
          const headers = await this.client.headers(extra);
          heard();
          const response = await this.client.fetch(this.client.url(this.path(['events']), this.search),
            { headers, signal: connection.signal, cache: 'no-store' });
          heard();
          if (!response.ok) {
            const problem = SectionalError.from(response.status, await response.text());
            if (problem.status !== 503) throw problem;
            retryAfter = response.headers.get('Retry-After');
            failures++;
          } else if (response.body) {
            const reader = response.body.getReader();
            const decoder = new TextDecoder();
            let buffer = '', id = /** @type {string|undefined} */ (undefined), name = '', data = /** @type {string[]} */ ([]);
            for (;;) {
              const { value, done } = await reader.read();
              if (done) break;
              heard();
              failures = 0;
              buffer += decoder.decode(value, { stream: true });
              let newline;
              while ((newline = buffer.indexOf('\n')) >= 0) {
                const line = buffer.slice(0, newline).replace(/\r$/, '');
                buffer = buffer.slice(newline + 1);
                if (line === '') {
                  if (data.length && (name || 'message') === 'version') {
                    if (id !== undefined) lastEventID = id;
                    clearTimeout(idle);   // the caller's time with the event is not the connection's silence
                    yield /** @type {VersionEvent} */ (JSON.parse(data.join('\n')));
                    heard();
                  }
                  name = '';
                  data = [];
                  continue;
                }
                if (line.startsWith(':')) continue;
                const colon = line.indexOf(':');
                const field = colon < 0 ? line : line.slice(0, colon);
                const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
                if (field === 'id') id = value;
                else if (field === 'event') name = value;
                else if (field === 'data') data.push(value);
                else if (field === 'retry' && /^\d+$/.test(value)) retry = Number(value);
              }
            }
          }
        } catch (e) {
          if (e instanceof SectionalError) throw e;
          if (own.signal.aborted) return;
          failures++;
        } finally {
          clearTimeout(idle);
          own.signal.removeEventListener('abort', end);
          connection.abort();
        }
        await sleep(reconnectDelay({ retryAfter, fixed: o.reconnectDelay, retry, failures }), own.signal);
      }
    } finally {
      if (o.signal) o.signal.removeEventListener('abort', abort);
      own.abort();
    }
  }

  /**
   * A mirror of this list (nothing loaded until `reload()` or `sync()`).
   * @param {{view?: string, pageSize?: number}} [o]
   */
  mirror(o = {}) { return new ListMirror(this, o); }
}

/**
 * One record collection's API (writes need the service token when the server has one). Every
 * request takes an optional `signal` (see `SectionalClient.request`).
 */
export class SectionalCollection {
  /**
   * @param {SectionalClient} client
   * @param {string} name
   */
  constructor(client, name) {
    this.client = client;
    this.name = name;
  }

  /**
   * @param {string[]} more
   */
  path(more) { return ['v1', 'collections', this.name, ...more]; }

  /**
   * Stores a record (a JSON object) under `id`. `version` is the version holding the write.
   * @param {string} id @param {Record<string, unknown>} record @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{collection: string, id: string, record: Record<string, unknown>, version: number}>}
   */
  put(id, record, o = {}) { return this.client.request('PUT', this.path(['records', id]), { body: record, signal: o.signal }); }

  /**
   * Merges `changes` into the record stored under `id` (JSON Merge Patch, RFC 7396: a member set
   * to null is removed) and answers the merged record; a missing record is `record-not-found`.
   * @param {string} id @param {Record<string, unknown>} changes @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{collection: string, id: string, record: Record<string, unknown>, version: number}>}
   */
  patch(id, changes, o = {}) {
    return this.client.request('PATCH', this.path(['records', id]),
      { body: changes, contentType: 'application/merge-patch+json', signal: o.signal });
  }

  /**
   * The record stored under `id`.
   * @param {string} id
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<Record<string, unknown>>}
   */
  get(id, o = {}) { return this.client.request('GET', this.path(['records', id]), { signal: o.signal }); }

  /**
   * Deletes the record stored under `id`.
   * @param {string} id
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<void>}
   */
  async delete(id, o = {}) { await this.client.request('DELETE', this.path(['records', id]), { signal: o.signal }); }

  /**
   * One page of records, by id.
   * @param {{pageSize?: number, token?: string, signal?: AbortSignal}} [o]
   * @returns {Promise<{records: Record<string, unknown>[], nextPageToken?: string}>}
   */
  records(o = {}) {
    return this.client.request('GET', this.path(['records']),
      { query: { pageSize: o.pageSize || undefined, pageToken: o.token }, signal: o.signal });
  }

  /**
   * Upserts, patches (objects with an `id`, merged as `patch` merges) and deletes atomically.
   * @param {{upsert?: Record<string, unknown>[], patch?: Record<string, unknown>[], delete?: string[]}} ops
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{upserted: number, patched: number, deleted: number, version: number}>}
   */
  batch(ops, o = {}) {
    return this.client.request('POST', this.path(['batch']),
      { body: { upsert: ops.upsert || [], patch: ops.patch || [], delete: ops.delete || [] }, signal: o.signal });
  }
}

/**
 * @param {string} list @param {number} from @param {number} to @param {boolean} reload
 * @returns {Changes}
 */
function emptyChanges(list, from, to, reload) {
  return { list, from, to, reload,
    sections: { deleted: [], inserted: [], moved: [], updated: [] },
    rows: { deleted: [], inserted: [], moved: [], updated: [] } };
}

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

/**
 * @param {IndexPath} p
 */
const pathKey = (p) => `${p.section}:${p.row}`;

/**
 * A client-side copy of a list: the outline plus the rows loaded so far, placeholders (`null`)
 * for the rest. `sync()` applies the server's batch update (or reloads) and returns it to animate,
 * keeping the held rows' positional fields (index path, tag location, accessibility id) right.
 * Operations run one at a time, in call order. Each takes an optional `signal` (an AbortSignal)
 * that cancels it: its request in flight is cancelled and it rejects at once with the signal's
 * reason (an `AbortError` DOMException for `abort()`; a signal aborted already sends nothing), as
 * does one still waiting its turn. A cancelled operation stores nothing: the mirror stays as it
 * was (but for a view it created for a toggle, kept as when the toggle fails), and it holds up
 * none of the later operations, even when its request hangs.
 */
export class ListMirror {
  /**
   * @param {SectionalList} list
   * @param {{view?: string, pageSize?: number}} [o]
   */
  constructor(list, o = {}) {
    this.list = list;
    /** @type {string|undefined} */
    this.view = o.view;
    this.pageSize = Math.max(1, Math.min(o.pageSize || 50, 500));
    /** @type {Snapshot|null} */
    this.snapshot = null;
    /** @type {Promise<unknown>} */
    this.queue = Promise.resolve();
  }

  /**
   * Runs `job` after every operation called before it has ended; the next one waits for it in
   * turn. When `signal` aborts while `job` waits its turn, this rejects at once and `job` never
   * runs (the next operation still waits for the earlier ones). A started `job` gives its requests
   * the same signal, so it ends as soon as they are cancelled, with the signal's reason (stored
   * nothing), or with its result when every answer had come already (stored it): the caller and
   * the next operation wait for that, never for a cancelled request.
   * @template T
   * @param {() => Promise<T>} job
   * @param {AbortSignal} [signal]
   * @returns {Promise<T>}
   */
  serially(job, signal) {
    const turn = this.queue;
    const run = unlessAborted(turn, signal).then(job);
    this.queue = turn.then(() => run).catch(() => undefined);
    return run;
  }

  /**
   * Visible rows before `path`, in all sections.
   * @param {IndexPath} path
   */
  itemsBefore(path) {
    const s = this.snapshot;
    return s ? s.sections.slice(0, path.section).reduce((a, x) => a + x.rows.length, 0) + path.row : 0;
  }

  /**
   * Fetches the outline and the first `rows` visible rows (default: as many as are loaded now,
   * at least a page) afresh.
   * @param {{rows?: number, signal?: AbortSignal}} [o] @returns {Promise<MirrorUpdate>}
   */
  reload(o = {}) { return this.serially(() => this.reloadNow(o.rows, o.signal), o.signal); }

  /**
   * Brings the mirror to the current version (reloading when the server says `reload`, or when the
   * list's version is below the mirror's); returns the batch update to animate. A section
   * shown or hidden elsewhere through the mirror's view reloads, even when the list has not moved.
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<MirrorUpdate>}
   */
  sync(o = {}) { return this.serially(() => this.syncNow(o.signal), o.signal); }

  /**
   * The row at `path`, loading its page of the section when it is a placeholder. Throws
   * StaleError when the list has moved on (nothing stored: sync first).
   * @param {IndexPath} path @param {{signal?: AbortSignal}} [o] @returns {Promise<Row|null>}
   */
  row(path, o = {}) { return this.serially(() => this.loadNow(path, o.signal), o.signal); }

  /**
   * Loads the next rows after the loaded beginning of the list (up to a page, from the first
   * placeholder, within its section). Resolves `false` when every row is loaded already. Throws
   * StaleError when the list has moved on (nothing stored: sync first).
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<boolean>}
   */
  loadNext(o = {}) {
    return this.serially(async () => {
      const s = this.snapshot;
      if (!s) return false;
      for (const [n, own] of s.sections.entries()) {
        const r = own.rows.indexOf(null);
        if (r >= 0) {
          await this.loadRange(n, r, Math.min(this.pageSize, own.rows.length - r), o.signal);
          return true;
        }
      }
      return false;
    }, o.signal);
  }

  /**
   * Hides or shows a section; returns the batch update. Throws StaleError when the list has moved
   * on so far that `index` names another section now, or none (sync, then toggle again). Without
   * a view, the mirror creates one first and reads through it from then on (`snapshot.view` says
   * so), even when the toggle fails.
   * @param {boolean} hidden
   * @param {number} index
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<MirrorUpdate>}
   */
  setHidden(hidden, index, o = {}) { return this.serially(() => this.setHiddenNow(hidden, index, o.signal), o.signal); }

  /**
   * Flips a section.
   * @param {number} index
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<MirrorUpdate>}
   */
  toggle(index, o = {}) {
    return this.serially(async () => {
      const s = this.snapshot;
      if (!s || !s.sections[index]) throw new SectionalError('section-not-found', 404, '', `The mirror has no section ${index}.`);
      return this.setHiddenNow(!s.sections[index].section.hidden, index, o.signal);
    }, o.signal);
  }

  /**
   * Every later sync, run when the event stream announces a version other than the mirror's: a
   * newer one, or an older one (the server went back: a new database at its address, one put
   * back by a file copy; the sync then reloads). A sync that fails while the server is away (a network
   * error, a 503) is tried again after the stream's reconnect delay (`reconnectDelay`, backing off),
   * until it gets through; another problem ends it. Leaving a `for await` over it closes the stream;
   * `signal` closes it too, and cancels a sync under way (then nothing is stored); `idleTimeout` is
   * the stream's (see `SectionalList.events`).
   * @param {{signal?: AbortSignal, reconnectDelay?: number, idleTimeout?: number}} [o]
   * @returns {AsyncGenerator<MirrorUpdate, void, void>}
   */
  async *updates(o = {}) {
    for await (const event of this.list.events(o)) {
      if (this.snapshot && event.version === this.snapshot.version) continue;
      const update = await this.syncRetrying(o);
      if (!update) return;
      yield update;
    }
  }

  /**
   * `sync()`, tried again while the server is away (a network error, a 503), after the event
   * stream's reconnect delay for as many failures in a row (the server's `retry:` is 2 s); `null`
   * when `signal` aborts first. Another problem is thrown.
   * @param {{signal?: AbortSignal, reconnectDelay?: number}} o @returns {Promise<MirrorUpdate|null>}
   */
  async syncRetrying(o) {
    for (let failures = 1; ; failures++) {
      try {
        return await this.sync({ signal: o.signal });
      } catch (e) {
        if (e instanceof SectionalError && e.status !== 503) throw e;
        if (o.signal && o.signal.aborted) return null;
        await sleep(reconnectDelay({ fixed: o.reconnectDelay, retry: 2000, failures }), o.signal);
        if (o.signal && o.signal.aborted) return null;
      }
    }
  }

  /**
   * @param {number|undefined} wanted
   * @param {AbortSignal} [signal]
   * @returns {Promise<MirrorUpdate>}
   */
  async reloadNow(wanted, signal) {
    const old = this.snapshot;
    const loadedBefore = old ? old.sections.reduce((a, s) => a + s.rows.filter((r) => r).length, 0) : 0;
    const target = wanted ?? Math.max(loadedBefore, this.pageSize);
    for (let attempt = 1; ; attempt++) {
      const outline = await this.list.outline({ view: this.view, signal });
      /** @type {Snapshot} */
      const next = { list: outline.list, title: outline.title, version: outline.version, view: this.view,
        sections: outline.sections.map((section) => ({ section, rows: new Array(section.rowCount).fill(null), pending: new Set() })) };
      let loaded = 0, consistent = true;
      if (target > 0) {
        try {
          for await (const page of this.list.pages({ size: this.pageSize, view: this.view, signal })) {
            if (page.version !== outline.version) { consistent = false; break; }
            for (const part of page.sections) {
              const own = next.sections[part.index];
              if (!own) continue;
              part.rows.forEach((row, i) => {
                const r = (part.rowOffset || 0) + i;
                if (r < own.rows.length) { own.rows[r] = row; loaded++; }
              });
            }
            if (loaded >= target) break;
          }
        } catch (e) {
          // The list's definition changed under the walk (`400 invalid-page-token` with
          // `reload: true`): start again from the outline.
          if (!(e instanceof SectionalError && e.reload)) throw e;
          consistent = false;
        }
      }
      if (consistent || attempt >= 5) {
        this.snapshot = next;
        return { changes: emptyChanges(this.list.name, old ? old.version : 0, next.version, true), snapshot: next };
      }
    }
  }

  /**
   * @param {AbortSignal} [signal]
   * @returns {Promise<MirrorUpdate>}
   */
  async syncNow(signal) {
    const old = this.snapshot;
    if (!old) return this.reloadNow(undefined, signal);
    for (let attempt = 0; attempt < 3; attempt++) {
      let changes;
      try {
        changes = await this.list.changes(old.version, { view: this.view, signal });
      } catch (e) {
        // The mirror is ahead of the list: the server went back (a new database at its address,
        // one put back by a file copy), so no diff leads from the mirror's version to its.
        if (e instanceof SectionalError && e.status === 400 && e.slug === 'invalid-version') break;
        throw e;
      }
      if (changes.reload) break;
      if (changes.to === old.version) {
        // The list has not moved; its view may have, elsewhere (that moves no version).
        if (this.view && await this.hiddenChanged(old, this.view, signal)) break;
        return { changes, snapshot: old };
      }
      const outline = await this.list.outline({ view: this.view, signal });
      if (outline.version !== changes.to) continue;
      let applied;
      try { applied = applyToSnapshot(changes, old, outline, this.pageSize); } catch (_) { break; }
      const fresh = await this.fetchPending(applied.snapshot, signal);
      if (!fresh) continue;
      reposition(applied.snapshot, fresh);
      this.snapshot = applied.snapshot;
      return { changes: announce(changes, applied.waiting), snapshot: applied.snapshot };
    }
    return this.reloadNow(undefined, signal);
  }

  /**
   * `true` when the view's hidden sections are not those `snapshot` shows hidden: a section was
   * shown or hidden elsewhere through the view.
   * @param {Snapshot} snapshot @param {string} view @param {AbortSignal} [signal] @returns {Promise<boolean>}
   */
  async hiddenChanged(snapshot, view, signal) {
    const hidden = new Set((await this.list.view(view, { signal })).hidden);
    return snapshot.sections.some((s) => s.section.hidden !== hidden.has(s.section.key));
  }

  /**
   * Loads every pending row, in runs; `null` when an answer is at another version, or the list
   * has moved on so far that a section `next` holds is gone (`404 section-not-found`).
   * @param {Snapshot} next @param {AbortSignal} [signal] @returns {Promise<Set<string>|null>}
   */
  async fetchPending(next, signal) {
    const fresh = new Set();
    for (let n = 0; n < next.sections.length; n++) {
      const own = next.sections[n];
      const marked = [...own.pending].sort((a, b) => a - b);
      for (let i = 0; i < marked.length;) {
        let end = i;
        while (end + 1 < marked.length && marked[end + 1] === marked[end] + 1 && end - i < 499) end++;
        const start = marked[i], count = marked[end] - start + 1;
        let range;
        try {
          range = await this.list.rows(n, { start, count, view: this.view, signal });
        } catch (e) {
          if (sectionGone(e)) return null;
          throw e;
        }
        if (range.version !== next.version || range.section.key !== own.section.key || range.section.rows.length !== count) return null;
        range.section.rows.forEach((row, k) => {
          own.rows[start + k] = row;
          fresh.add(pathKey({ section: n, row: start + k }));
        });
        i = end + 1;
      }
      own.pending.clear();
    }
    return fresh;
  }

  /**
   * @param {IndexPath} path
   * @param {AbortSignal} [signal]
   * @returns {Promise<Row|null>}
   */
  async loadNow(path, signal) {
    const s = this.snapshot;
    const own = s && s.sections[path.section];
    if (!s || !own || path.row < 0 || path.row >= own.rows.length) return null;
    const have = own.rows[path.row];
    if (have) return have;
    const start = path.row - (path.row % this.pageSize);
    await this.loadRange(path.section, start, Math.min(this.pageSize, own.rows.length - start), signal);
    return this.snapshot ? this.snapshot.sections[path.section].rows[path.row] : null;
  }

  /**
   * Loads rows [start, start + count) of section `n` at the mirror's version; StaleError when the
   * list has moved on (the section may be gone).
   * @param {number} n @param {number} start @param {number} count @param {AbortSignal} [signal]
   */
  async loadRange(n, start, count, signal) {
    const s = /** @type {Snapshot} */ (this.snapshot);
    const own = s.sections[n];
    let range;
    try {
      range = await this.list.rows(n, { start, count, view: this.view, signal });
    } catch (e) {
      throw await this.staleAfter(e, s.version, signal);
    }
    if (range.version !== s.version) throw new StaleError(s.version, range.version);
    const copy = { section: own.section, rows: [...own.rows], pending: new Set(own.pending) };
    range.section.rows.forEach((row, k) => {
      if (start + k < copy.rows.length) { copy.rows[start + k] = row; copy.pending.delete(start + k); }
    });
    const sections = [...s.sections];
    sections[n] = copy;
    this.snapshot = { ...s, sections };      // earlier snapshots stay as they were
  }

  /**
   * @param {boolean} hidden
   * @param {number} index
   * @param {AbortSignal} [signal]
   * @returns {Promise<MirrorUpdate>}
   */
  async setHiddenNow(hidden, index, signal) {
    if (!this.snapshot) await this.reloadNow(undefined, signal);
    const current = /** @type {Snapshot} */ (this.snapshot);
    const s = { ...current, sections: [...current.sections] };   // earlier snapshots stay as they were
    const own = s.sections[index];
    if (!own) throw new SectionalError('section-not-found', 404, '', `The mirror has no section ${index}.`);
    const changes = emptyChanges(this.list.name, s.version, s.version, false);
    if (own.section.hidden === hidden) return { changes, snapshot: current };
    if (!this.view) {
      // A new view starts from the definition's default hidden sections, as the list is read
      // without one: those absent from the list for now too. Every read goes through it from
      // now on, whatever becomes of the toggle.
      this.view = (await this.list.createView(undefined, { signal })).view;
      s.view = this.view;
      this.snapshot = { ...current, view: this.view };
    }
    let answer;
    try {
      answer = await this.list.toggle(index, this.view, { signal });
    } catch (e) {
      throw await this.staleAfter(e, s.version, signal);
    }
    if (answer.section.key !== own.section.key) {
      // Another section has that index now: flip it back (unless that one is gone too).
      await this.list.toggle(index, this.view, { signal }).catch((e) => { if (!sectionGone(e)) throw e; });
      throw new StaleError(s.version, answer.version);
    }
    const section = { ...own.section, hidden };
    if (hidden) {
      section.rowCount = 0;
      changes.rows.deleted = own.rows.map((_, row) => ({ section: index, row }));
      s.sections[index] = { section, rows: [], pending: new Set() };
    } else {
      section.rowCount = section.totalRowCount;
      const rows = /** @type {(Row|null)[]} */ (new Array(section.rowCount).fill(null));
      const pending = new Set(rows.map((_, r) => r).filter((r) => r < this.pageSize));
      changes.rows.inserted = rows.map((_, row) => ({ section: index, row }));
      if (rows.length) {
        // Gone (the list has moved on): the next sync loads them.
        const range = await this.list.rows(index, { start: 0, count: Math.min(this.pageSize, rows.length), view: this.view, signal })
          .catch((e) => { if (sectionGone(e)) return null; throw e; });
        if (range && range.version === s.version) range.section.rows.forEach((row, k) => { rows[k] = row; pending.delete(k); });
      }
      s.sections[index] = { section, rows, pending };
    }
    this.snapshot = s;
    return { changes, snapshot: s };
  }

  /**
   * `e` itself, unless it is a `404 section-not-found` naming a section the mirror holds at
   * `version`: then a StaleError (the list has moved on and that section is gone) at the list's
   * version, read from the outline (one request). `e` when the list has not moved.
   * @param {unknown} e @param {number} version @param {AbortSignal} [signal] @returns {Promise<unknown>}
   */
  async staleAfter(e, version, signal) {
    if (!sectionGone(e)) return e;
    const server = (await this.list.outline({ view: this.view, signal })).version;
    return server === version ? e : new StaleError(version, server);
  }
}

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
    arriving.set(pathKey(m.to), { slot: { row: from.rows[m.from.row], pending: from.pending.has(m.from.row) || !!m.updated }, from: m.from });
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
      keep.push({ slot: { row, pending: before.pending.has(r) || updated.has(pathKey({ section: o, row: r })) }, oldIndex: r });
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
function reposition(snapshot, fresh) {
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
function announce(changes, waiting) {
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
