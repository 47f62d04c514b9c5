// ListMirror: a client-side copy of a list that applies the server's batch updates. Its
// operations run one at a time, in call order; their work is MirrorState's (mirror-state.mjs).

import { SectionalError, reconnectDelay } from './errors.mjs';
import { sleep } from './abortable.mjs';
import { MirrorState } from './mirror-state.mjs';

/** @typedef {import('./types.mjs').IndexPath} IndexPath */
/** @typedef {import('./types.mjs').Row} Row */
/** @typedef {import('./types.mjs').MirrorUpdate} MirrorUpdate */

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
export class ListMirror extends MirrorState {
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
}
