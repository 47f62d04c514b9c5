// SectionalList: one list's API (outline, pages, section ranges, look-ups, changes, views, the
// event stream), and the ListMirror of it (mirror.mjs).

import { SectionalError, reconnectDelay } from './errors.mjs';
import { sleep, unlessAborted } from './abortable.mjs';
import { emptyChanges } from './empty-changes.mjs';
import { ListMirror } from './mirror.mjs';

/** @typedef {import('./client.mjs').SectionalClient} SectionalClient */
/** @typedef {import('./types.mjs').Outline} Outline */
/** @typedef {import('./types.mjs').Page} Page */
/** @typedef {import('./types.mjs').SectionRange} SectionRange */
/** @typedef {import('./types.mjs').SectionIndexes} SectionIndexes */
/** @typedef {import('./types.mjs').RowLookUp} RowLookUp */
/** @typedef {import('./types.mjs').Changes} Changes */
/** @typedef {import('./types.mjs').ViewState} ViewState */
/** @typedef {import('./types.mjs').ViewSection} ViewSection */
/** @typedef {import('./types.mjs').VersionEvent} VersionEvent */

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
   * With `key`, only while section `index` is the one with that key: else nothing changes and it
   * rejects with `412 precondition-failed` carrying the list's `version`.
   * @param {boolean} hidden
   * @param {number} index
   * @param {string} view
   * @param {{signal?: AbortSignal, key?: string}} [o]
   * @returns {Promise<ViewSection>}
   */
  setHidden(hidden, index, view, o = {}) {
    return this.viewRequest('PUT', [view, 'sections', String(index)], o.key === undefined ? { hidden } : { hidden, key: o.key }, o.signal);
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
   * `signal` aborts, or throws a problem other than 502, 503 or 504 (the server away: see
   * `SectionalError.serverAway`). A connection on which nothing arrives for `idleTimeout` ms
   * (default 60000; the server sends a keep-alive comment every 15 s) is taken as dead, as one
   * that dropped: a peer that vanished without closing it (a lost network, a
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
          // The token and the request raced with the connection's signal, the idle timer running:
          // a token provider (or a `fetch` option) that never settles holds neither the caller's
          // abort nor a reconnect.
          heard();
          const response = await unlessAborted((async () => {
            const headers = await this.client.headers(extra);
            return this.client.fetch(this.client.url(this.path(['events']), this.search),
              { headers, signal: connection.signal, cache: 'no-store' });
          })(), connection.signal);
          heard();
          if (!response.ok) {
            const problem = SectionalError.from(response.status, await response.text());
            if (!problem.serverAway) throw problem;
            retryAfter = response.headers.get('Retry-After');
            failures++;
          } else if (response.body) {
            const reader = response.body.getReader();
            let first = true;
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
                    const event = JSON.parse(data.join('\n'));
                    yield /** @type {VersionEvent} */ ({ list: event.list, version: event.version, firstOnConnection: first });
                    first = false;
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
