// A server on 127.0.0.1 that reads requests and never answers: one that hangs (as the Swift
// tests' SilentServer). It counts the request heads it has read and keeps their connections open
// until it is stopped.
import net from 'node:net';

/**
 * Starts one on a port the kernel picks.
 * @returns {Promise<{url: string, requests: () => number, stop: () => Promise<void>}>}
 */
export async function startSilentServer() {
  /** @type {Set<net.Socket>} */
  const sockets = new Set();
  let heads = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    let read = '';
    socket.setEncoding('latin1');
    socket.on('data', (text) => {
      read += text;
      for (let end; (end = read.indexOf('\r\n\r\n')) >= 0; read = read.slice(end + 4)) heads++;
    });
    socket.on('error', () => undefined);             // a client that gives up resets its connection
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {net.AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${address.port}`,
    /** Request heads read so far. */
    requests: () => heads,
    /** Stops listening and closes every connection (their requests then fail). */
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
    },
  };
}
