// SectionalCollection: one record collection's API (put, patch, get, delete, pages, batches).

/** @typedef {import('./client.mjs').SectionalClient} SectionalClient */

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
   * Deletes the record stored under `id`; resolves the version holding the delete (its
   * `Sectional-Version`), for `client.readingAtLeast`.
   * @param {string} id
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<number>}
   */
  delete(id, o = {}) { return this.client.request('DELETE', this.path(['records', id]), { signal: o.signal, version: true }); }

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
   * Upserts, patches (objects with an `id`, merged as `patch` merges) and deletes atomically;
   * with `expectedVersions` (`{id: version | 0 | '*'}`: at that version, absent, present) only
   * while every one holds, else a `precondition-failed` SectionalError (412) and nothing written.
   * @param {{upsert?: Record<string, unknown>[], patch?: Record<string, unknown>[], delete?: string[],
   *   expectedVersions?: Record<string, number|'*'>}} ops
   * @param {{signal?: AbortSignal}} [o]
   * @returns {Promise<{upserted: number, patched: number, deleted: number, version: number}>}
   */
  batch(ops, o = {}) {
    /** @type {Record<string, unknown>} */
    const body = { upsert: ops.upsert || [], patch: ops.patch || [], delete: ops.delete || [] };
    if (ops.expectedVersions) body.expectedVersions = ops.expectedVersions;
    return this.client.request('POST', this.path(['batch']), { body, signal: o.signal });
  }
}
