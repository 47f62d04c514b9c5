// ListMirror: a client-side copy of a list that applies the server's batch updates. Its
// operations run one at a time, in call order (serially); each has its work in a `…Now` method.

import { SectionalError, StaleError, reconnectDelay, sectionGone } from './errors.mjs';
import { sleep, unlessAborted } from './abortable.mjs';
import { emptyChanges } from './empty-changes.mjs';
import { applyToSnapshot, reposition, announce, pathKey } from './snapshot-applier.mjs';

/** @typedef {import('./list.mjs').SectionalList} SectionalList */
/** @typedef {import('./types.mjs').IndexPath} IndexPath */
/** @typedef {import('./types.mjs').Row} Row */
/** @typedef {import('./types.mjs').Snapshot} Snapshot */
/** @typedef {import('./types.mjs').MirrorUpdate} MirrorUpdate */

/**
 * A client-side copy of a list: the outline plus the rows loaded so far, placeholders (`null`)
 * for the rest. `sync()` applies the server's batch update (or reloads) and returns it to animate,
 * keeping the held rows' positional fields (index path, tag location, accessibility id) right.
 * Operations run one at a time, in call order. Each takes an optional `signal` (an AbortSignal)
 * that cancels it: its request in flight is cancelled and it rejects at once with the signal's
 * reason (an `AbortError` DOMException for `abort()`; a signal aborted already sends nothing), as
 * does one still waiting its turn. A cancelled operation stores nothing: the mirror stays as it
 * was (but for a view it created for a toggle, kept as when the toggle fails, and a toggle
 * cancelled after the server answered it, below), and it holds up none of the later operations,
 * even when its request hangs.
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
    /**
     * The version the running sync reads at least, when an event started it: the event's. Behind
     * a load balancer the instance answering may not have applied the version another instance
     * announced, and would say the list has not moved (the mirror then stayed behind until the
     * next write); asked for the version, it waits for it, or answers `503`.
     * @type {number|undefined}
     */
    this.floor = undefined;
  }

  /** The list's API as the running operation reads it (at least at `floor`). */
  get reader() {
    return this.floor === undefined ? this.list
      : this.list.client.readingAtLeast(this.floor).list(this.list.name, { search: this.list.search });
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
   * StaleError when the list has moved on or the mirror's view is gone (nothing stored: sync first).
   * @param {IndexPath} path @param {{signal?: AbortSignal}} [o] @returns {Promise<Row|null>}
   */
  row(path, o = {}) { return this.serially(() => this.loadNow(path, o.signal), o.signal); }

  /**
   * Loads the next rows after the loaded beginning of the list (up to a page, from the first
   * placeholder, within its section). Resolves `false` when every row is loaded already. Throws
   * StaleError when the list has moved on or the mirror's view is gone (nothing stored: sync first).
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
   * on so far that `index` names another section now (the server then changes nothing: the request
   * names the state and the section's key), or none, or when the mirror's view is gone (sync,
   * then toggle again: the sync reloads without it, and the toggle makes a new one). Without
   * a view, the mirror creates one first and reads through it from then on (`snapshot.view` says
   * so), even when the toggle fails. Once the server has answered the toggle, the mirror shows the
   * section as its view now has it, even when the first rows of a section shown cannot be read:
   * they stay placeholders, and the call rejects only when it was cancelled (after storing that).
   * A toggle cancelled before its answer may or may not have reached the server: `sync()` tells,
   * as it does for a section shown or hidden elsewhere through the view, and sending it again does
   * no harm.
   * @param {boolean} hidden
   * @param {number} index
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<MirrorUpdate>}
   */
  setHidden(hidden, index, o = {}) { return this.serially(() => this.setHiddenNow(hidden, index, o.signal), o.signal); }

  /**
   * Flips a section; see `setHidden` (a mirror not loaded yet loads first).
   * @param {number} index
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<MirrorUpdate>}
   */
  toggle(index, o = {}) {
    return this.serially(async () => {
      if (!this.snapshot) await this.reloadNow(undefined, o.signal);
      const s = this.snapshot;
      if (!s || !s.sections[index]) throw new SectionalError('section-not-found', 404, '', `The mirror has no section ${index}.`);
      return this.setHiddenNow(!s.sections[index].section.hidden, index, o.signal);
    }, o.signal);
  }

  /**
   * Every later sync, run when the event stream announces a version other than the mirror's: a
   * newer one, or an older one (the server went back: a new database at its address, one put
   * back by a file copy; the sync then reloads). Versions a sync took in before they were
   * announced start none (see `takenIn`): a burst of writes costs a sync, not one a version, so
   * writes coming faster than syncs do not leave the mirror ever further behind. A sync that
   * fails while the server is away (a network error, a 502, 503 or 504) is tried again after the
   * server's `Retry-After` (at least a second), else after the stream's reconnect delay
   * (`reconnectDelay`, backing off), until it gets through; another problem ends it. Each
   * connection's first event is taken as where the list is now (`firstOnConnection`). Leaving a
   * `for await` over it closes the stream;
   * `signal` closes it too, and cancels a sync under way (then nothing is stored); `idleTimeout` is
   * the stream's (see `SectionalList.events`).
   * @param {{signal?: AbortSignal, reconnectDelay?: number, idleTimeout?: number}} [o]
   * @returns {AsyncGenerator<MirrorUpdate, void, void>}
   */
  async *updates(o = {}) {
    /** @type {number|undefined} the version the stream announced before */
    let heard;
    for await (const event of this.list.events(o)) {
      // After a reconnect the stream says where the list is now; what was heard before says
      // nothing of it (the server may have gone back below the mirror in between).
      const before = event.firstOnConnection ? undefined : heard;
      heard = event.version;
      if (this.snapshot && takenIn(event.version, before, this.snapshot.version)) continue;
      const update = await this.syncRetrying(event.version, o);
      if (!update) return;
      yield update;
    }
  }

  /**
   * `sync()` reading at least `version` (an event's), tried again while the server is away or
   * behind (a network error, a 502, 503 or 504), after the server's `Retry-After` (at least a
   * second), else the event stream's reconnect delay for as many failures in a row (the server's
   * `retry:` is 2 s); `null` when `signal` aborts first. Another problem is thrown.
   * @param {number} version
   * @param {{signal?: AbortSignal, reconnectDelay?: number}} o @returns {Promise<MirrorUpdate|null>}
   */
  async syncRetrying(version, o) {
    /** @type {number|undefined} */
    let floor = version;
    let notCaughtUp = 0;
    for (let failures = 1; ; failures++) {
      try {
        return await this.serially(async () => {
          this.floor = floor;
          try { return await this.syncNow(o.signal); } finally { this.floor = undefined; }
        }, o.signal);
      } catch (e) {
        if (e instanceof SectionalError && !e.serverAway) throw e;
        // A server still short of the event's version after `floorTries` such answers (some 6 s:
        // it waits a second each time, and so does the mirror) went back rather than lags: a
        // database put back below the version the event named, the event's write lost with it.
        // Read it as it is: a mirror ahead of it reloads.
        if (e instanceof SectionalError && e.slug === 'not-caught-up' && ++notCaughtUp >= floorTries) floor = undefined;
        if (o.signal && o.signal.aborted) return null;
        // The server's own wait first (a `503 storage-unavailable` asks 10 s, `not-caught-up` 1 s;
        // at least a second: `reconnectDelay`).
        const retryAfter = e instanceof SectionalError ? e.retryAfter : null;
        await sleep(reconnectDelay({ fixed: o.reconnectDelay, retry: 2000, failures, retryAfter }), o.signal);
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
    // The view read with, dropped here when it is gone but kept by the mirror only with the
    // snapshot read without it: a reload that fails after stores nothing, the view neither.
    let view = this.view;
    for (let attempt = 1; ; attempt++) {
      let outline;
      try {
        outline = await this.reader.outline({ view, signal });
      } catch (e) {
        // The view is gone (deleted elsewhere, expired, or the server went back to a database
        // without it): read the list as it is for everyone; a later toggle makes a new view.
        if (!(view && viewGone(e))) throw e;
        view = undefined;
        continue;
      }
      /** @type {Snapshot} */
      const next = { list: outline.list, title: outline.title, version: outline.version, view,
        sections: outline.sections.map((section) => ({ section, rows: new Array(section.rowCount).fill(null), pending: new Set() })) };
      let loaded = 0, consistent = true;
      if (target > 0) {
        try {
          for await (const page of this.reader.pages({ size: this.pageSize, view, signal })) {
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
          // The list's definition changed under the walk (`400 invalid-page-token`, with
          // `reload: true`, or without it from an instance of an earlier release behind the same
          // load balancer), or the view went: start again from the outline (without the view, as
          // the outline read does).
          const gone = Boolean(view) && viewGone(e);
          if (!(e instanceof SectionalError && (e.slug === 'invalid-page-token' || gone))) throw e;
          // One never told to reload, met on every try, is no change under the walk.
          if (attempt >= 5 && !e.reload && !gone) throw e;
          if (gone) view = undefined;
          consistent = false;
        }
      }
      if (consistent || attempt >= 5) {
        next.view = view;
        this.snapshot = next;
        this.view = view;
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
        changes = await this.reader.changes(old.version, { view: this.view, signal });
      } catch (e) {
        // The mirror is ahead of the list: the server went back (a new database at its address,
        // one put back by a file copy), so no diff leads from the mirror's version to its.
        if (e instanceof SectionalError && e.status === 400 && e.slug === 'invalid-version') break;
        if (this.view && viewGone(e)) break;     // reload: without the view, as it is for everyone
        throw e;
      }
      if (changes.reload) break;
      if (changes.to === old.version) {
        // The list has not moved; its view may have, elsewhere (that moves no version).
        if (this.view && await this.hiddenChanged(old, this.view, signal)) break;
        return { changes, snapshot: old };
      }
      // The reads that follow, at least at the diff's version: behind a load balancer, an instance
      // that has not applied it yet waits for it, rather than answer older (each such answer
      // sent the sync round again, then to a whole reload that could take the mirror back).
      const floor = this.floor;
      this.floor = Math.max(floor ?? changes.to, changes.to);
      try {
        const outline = await this.reader.outline({ view: this.view, signal });
        if (outline.version !== changes.to) continue;
        let applied;
        try { applied = applyToSnapshot(changes, old, outline, this.pageSize); } catch (_) { break; }
        const fresh = await this.fetchPending(applied.snapshot, signal);
        if (!fresh) continue;
        reposition(applied.snapshot, fresh);
        this.snapshot = applied.snapshot;
        return { changes: announce(changes, applied.waiting), snapshot: applied.snapshot };
      } finally {
        this.floor = floor;
      }
    }
    return this.reloadNow(undefined, signal);
  }

  /**
   * `true` when the view's hidden sections are not those `snapshot` shows hidden: a section was
   * shown or hidden elsewhere through the view.
   * @param {Snapshot} snapshot @param {string} view @param {AbortSignal} [signal] @returns {Promise<boolean>}
   */
  async hiddenChanged(snapshot, view, signal) {
    let state;
    try {
      state = await this.reader.view(view, { signal });
    } catch (e) {
      if (viewGone(e)) return true;            // reload, without it
      throw e;
    }
    const hidden = new Set(state.hidden);
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
          range = await this.reader.rows(n, { start, count, view: this.view, signal });
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
      range = await this.reader.rows(n, { start, count, view: this.view, signal });
    } catch (e) {
      throw await this.staleAfter(e, s.version, signal);
    }
    if (range.version !== s.version) throw new StaleError(s.version, range.version);
    // The same version, but the section hidden or shown through the view elsewhere (which moves
    // no version): its rows are not the mirror's to store (they came back empty, and a
    // `loadNext` loop asked for them forever). Stale: a sync reloads.
    if (range.section.key !== own.section.key || Boolean(range.section.hidden) !== Boolean(own.section.hidden)) {
      throw new StaleError(s.version, range.version);
    }
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
    try {
      // Named by its key: when the list has moved on so far that the index is another section,
      // the server changes nothing (412) and says where the list is.
      await this.list.setHidden(hidden, index, this.view, { signal, key: own.section.key });
    } catch (e) {
      if (e instanceof SectionalError && e.status === 412 && e.version !== undefined) throw new StaleError(s.version, e.version);
      throw await this.staleAfter(e, s.version, signal);
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
      s.sections[index] = { section, rows, pending };
      if (rows.length) {
        // The view has changed on the server: from here on the mirror shows it, whatever becomes
        // of these rows. Unread (the section gone, the list moved on, the request failed or was
        // cancelled), they stay placeholders, which `loadNext()` and `row()` read, as does the
        // next sync that moves the list (they are pending).
        const range = await this.reader.rows(index, { start: 0, count: Math.min(this.pageSize, rows.length), view: this.view, signal })
          .catch((e) => {
            if (!signal?.aborted) return null;
            this.snapshot = s;
            throw e;
          });
        if (range && range.version === s.version) range.section.rows.forEach((row, k) => { rows[k] = row; pending.delete(k); });
      }
    }
    this.snapshot = s;
    return { changes, snapshot: s };
  }

  /**
   * `e` itself, unless it is a `404 section-not-found` naming a section the mirror holds at
   * `version`: then a StaleError (the list has moved on and that section is gone) at the list's
   * version, read from the outline (one request), `e` when the list has not moved; or a
   * `404 view-not-found`: then a StaleError at `version`.
   * @param {unknown} e @param {number} version @param {AbortSignal} [signal] @returns {Promise<unknown>}
   */
  async staleAfter(e, version, signal) {
    // The view expired, evicted or deleted: the sync the caller makes reloads without it (and a
    // toggle after that makes a new view).
    if (this.view && viewGone(e)) return new StaleError(version, version);
    if (!sectionGone(e)) return e;
    const server = (await this.reader.outline({ view: this.view, signal })).version;
    return server === version ? e : new StaleError(version, server);
  }
}

/** `not-caught-up` answers to a sync reading at least an event's version before it reads without it. */
const floorTries = 3;

/**
 * Whether `e` says the mirror's view no longer exists.
 * @param {unknown} e
 */
function viewGone(e) {
  return e instanceof SectionalError && e.status === 404 && e.slug === 'view-not-found';
}

/**
 * Whether an event announcing `version` needs no sync: the mirror is at it (`current`), or already
 * past it by a sync an earlier event started — the event moves on from the one heard before it
 * (`heard`), as the writes of a burst announced while one sync took them all in do. An event
 * below the one before it is a server that went back, and syncs.
 * @param {number} version @param {number|undefined} heard @param {number} current
 */
function takenIn(version, heard, current) {
  return version === current || (heard !== undefined && heard < version && version < current);
}
