// Waits an AbortSignal ends early: sleep, and unlessAborted (a promise raced with a signal).

/**
 * Resolves after `ms`, or at once when `signal` aborts. Either way its listener on `signal` goes:
 * a long-lived signal (an `updates()` loop's, slept on before every retry) keeps none.
 * @param {number} ms
 * @param {AbortSignal} [signal]
 */
export const sleep = (ms, signal) => new Promise((resolve) => {
  const done = () => {
    clearTimeout(timer);
    signal?.removeEventListener('abort', done);
    resolve(undefined);
  };
  const timer = setTimeout(done, ms);
  signal?.addEventListener('abort', done, { once: true });
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
export function unlessAborted(promise, signal) {
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
