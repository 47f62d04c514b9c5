#!/usr/bin/env python3
"""Makes the history the "changes after 999 writes" scenario reads: 999 PUTs of random people
(the same ones on every run, seed 11) moved between teams — each its own version, so that the
version read before them is still among the 1,000 a list keeps (with 1,000 it fell out, and the
scenario measured a 53-byte `reload` answer, not a diff, until 2026-12-07; they make some 1,000
changes, so the scenario asks for `maxChanges=2000`).

    Benchmarks/write-changes.py BASE_URL [COUNT]
"""
import http.client
import json
import random
import sys

host, port = sys.argv[1].split("//")[1].split(":")
c = http.client.HTTPConnection(host, int(port))
random.seed(11)
for n in range(int(sys.argv[2]) if len(sys.argv) > 2 else 999):
    body = json.dumps({"name": f"Changed {random.randrange(10**6)}", "team": random.choice(["Design", "Sales", "Support"]), "kind": "person"})
    # Ids as scripts/generate-people.py writes them for 100,000 people (p-000001 … p-100000).
    c.request("PUT", f"/v1/collections/people/records/p-{random.randint(1, 100000):06d}", body, {"Content-Type": "application/json"})
    r = c.getresponse()
    r.read()
    assert r.status == 200, f"{r.status}: not an existing person"
