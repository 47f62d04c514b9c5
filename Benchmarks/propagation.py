#!/usr/bin/env python3
"""Propagation latency between two instances on one PostgreSQL database.

    Benchmarks/propagation.py BASE_A BASE_B COUNT     prints "p50_ms p99_ms max_ms"

Each of COUNT writes is a PUT on A; as soon as A answers, B is asked for the list at the
write's version (GET /v1/lists?minVersion=V: B answers once it has applied V, or 503 after
1 s). The latency is from A's answer to B's. Any 503 fails the run (exit 1).
"""
import http.client
import json
import sys
import time


def connect(base):
    host, port = base.split("//")[1].split(":")
    return http.client.HTTPConnection(host, int(port))


def main():
    a, b, count = connect(sys.argv[1]), connect(sys.argv[2]), int(sys.argv[3])
    latencies, behind = [], 0
    for n in range(count):
        body = json.dumps({"name": f"Propagated {n}", "team": "Design", "kind": "person"})
        a.request("PUT", f"/v1/collections/people/records/prop-{n % 100:03d}", body, {"Content-Type": "application/json"})
        written = a.getresponse()
        written.read()
        assert written.status in (200, 201), written.status
        version = written.getheader("Sectional-Version")
        acknowledged = time.perf_counter()
        b.request("GET", f"/v1/lists?minVersion={version}")
        read = b.getresponse()
        read.read()
        seen = time.perf_counter()
        if read.status != 200:
            behind += 1
            continue
        latencies.append((seen - acknowledged) * 1000)
    if behind:
        print(f"{behind} of {count} reads on B were not caught up within 1 s", file=sys.stderr)
        sys.exit(1)
    latencies.sort()
    pick = lambda q: latencies[min(len(latencies) - 1, int(q * len(latencies)))]
    print(f"{pick(0.50):.2f} {pick(0.99):.2f} {latencies[-1]:.2f}")


if __name__ == "__main__":
    main()
