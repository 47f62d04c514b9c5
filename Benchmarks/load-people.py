#!/usr/bin/env python3
"""Loads N generated people into a running server through POST /v1/collections/people/batch.

    Benchmarks/load-people.py BASE_URL COUNT      prints records/s

Batches of 2,500 (under the default 1 MiB body limit), every body encoded before the clock starts,
then sent one after another on one connection, each as soon as the one before was answered: the
time is the server's, all of it. Until 2026-12-07 each batch was encoded between two requests and
that time taken off the total, which left the server the encoding's pauses (about a quarter of
the run) for the work it does after an answer — the import's rate came out higher than a client
sending without pause would see.
"""
import http.client
import json
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/scripts")
from importlib import import_module  # noqa: E402

people = import_module("generate-people").people


def main():
    base, count = sys.argv[1], int(sys.argv[2])
    generated = list(people(count))
    bodies = [json.dumps({"upsert": generated[i:i + 2_500]}).encode() for i in range(0, len(generated), 2_500)]
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port)
    started = time.perf_counter()
    for body in bodies:
        connection.request("POST", "/v1/collections/people/batch", body, {"Content-Type": "application/json"})
        answer = connection.getresponse()
        answer.read()
        assert answer.status == 200, answer.status
    seconds = time.perf_counter() - started
    connection.close()
    print(f"loaded {len(generated)} records in {seconds:.2f} s (bodies encoded before, sent back to back): "
          f"{len(generated) / seconds:,.0f} records/s")


if __name__ == "__main__":
    main()
