#!/usr/bin/env python3
"""Write latency with many open event streams (streams never slow writers).

    Benchmarks/sse-writes.py BASE_URL STREAMS WRITES

Opens STREAMS connections to /v1/lists/contacts/events (reading them in a background thread so
every event is really delivered), then times WRITES sequential durable upserts and prints p50/p99,
next to the same writes with no streams open.
"""
import http.client
import json
import multiprocessing
import selectors
import socket
import sys
import time


def upserts(host, port, count, tag, settle=None):
    """Times `count` sequential upserts; `settle(n)` (if given) runs between them, untimed."""
    connection = http.client.HTTPConnection(host, port)
    times = []
    for n in range(count):
        if settle:
            settle(n)
        body = json.dumps({"name": f"Stream writer {tag} {n}", "team": "Design", "kind": "person"})
        started = time.perf_counter()
        connection.request("PUT", "/v1/collections/people/records/p-0000007", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        times.append(time.perf_counter() - started)
        assert answer.status in (200, 201), answer.status
    times.sort()
    return times[len(times) // 2] * 1000, times[int(len(times) * 0.99) - 1] * 1000


def hold_streams(host, port, streams, ready, stop, received):
    """In a process of its own (no shared interpreter lock with the writer): open the streams,
    read every event, count them."""
    selector = selectors.DefaultSelector()
    sockets = []
    for _ in range(streams):
        s = socket.create_connection((host, port))
        s.sendall(b"GET /v1/lists/contacts/events HTTP/1.1\r\nHost: x\r\n\r\n")
        s.setblocking(False)
        selector.register(s, selectors.EVENT_READ)
        sockets.append(s)
    connected = 0
    while connected < streams:
        for key, _ in selector.select(timeout=1):
            if b": connected" in key.fileobj.recv(65536):
                connected += 1
    ready.set()
    while not stop.is_set():
        for key, _ in selector.select(timeout=0.1):
            try:
                count = key.fileobj.recv(65536).count(b"event: version")
                with received.get_lock():
                    received.value += count
            except BlockingIOError:
                pass
    for s in sockets:
        s.close()


def main():
    base, streams, writes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    host, port = base.split("//")[1].split(":")
    port = int(port)
    quiet = upserts(host, port, writes, "quiet")
    ready, stop, received = multiprocessing.Event(), multiprocessing.Event(), multiprocessing.Value("q", 0)
    holder = multiprocessing.Process(target=hold_streams, args=(host, port, streams, ready, stop, received))
    holder.start()
    assert ready.wait(30), "streams did not open"
    def delivered(n):
        # Wait (bounded) until the previous write's event reached every stream, so each timed
        # upsert starts on an idle server: the latency of one write with the streams open.
        deadline = time.time() + 10
        while received.value < streams * n and time.time() < deadline:
            time.sleep(0.001)
    isolated = upserts(host, port, writes, "isolated", settle=delivered)
    delivered(writes)
    busy = upserts(host, port, writes, "busy")
    deadline = time.time() + 10
    while received.value < streams * writes * 2 and time.time() < deadline:
        time.sleep(0.05)
    stop.set()
    holder.join()
    print(f"upsert p50 {quiet[0]:.2f} ms / p99 {quiet[1]:.2f} ms with no streams; with {streams} open streams: "
          f"one write p50 {isolated[0]:.2f} ms / p99 {isolated[1]:.2f} ms, back-to-back writes (each waiting "
          f"for the previous fan-out) p50 {busy[0]:.2f} ms / p99 {busy[1]:.2f} ms; "
          f"{received.value:,} of {streams * writes * 2:,} events delivered")


if __name__ == "__main__":
    main()
