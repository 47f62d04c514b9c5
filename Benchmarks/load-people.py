#!/usr/bin/env python3
"""Loads N generated people into a running server through POST /v1/collections/people/batch.

    Benchmarks/load-people.py BASE_URL COUNT      prints records/s
"""
import json
import sys
import time
import urllib.request

sys.path.insert(0, __file__.rsplit("/", 2)[0] + "/scripts")
from importlib import import_module  # noqa: E402

people = import_module("generate-people").people


def main():
    base, count = sys.argv[1], int(sys.argv[2])
    batch, sent, started = [], 0, time.perf_counter()
    encode_seconds = 0.0

    def flush():
        nonlocal batch, sent, encode_seconds
        t = time.perf_counter()
        body = json.dumps({"upsert": batch}).encode()
        encode_seconds += time.perf_counter() - t
        request = urllib.request.Request(f"{base}/v1/collections/people/batch", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            assert answer.status == 200, answer.status
        sent += len(batch)
        batch = []

    generated = list(people(count))
    started = time.perf_counter()
    for person in generated:
        batch.append(person)
        if len(batch) == 2_500:  # stays under the default 1 MiB body limit
            flush()
    if batch:
        flush()
    seconds = time.perf_counter() - started - encode_seconds
    print(f"loaded {sent} records in {seconds:.2f} s (server side, client JSON encoding excluded): {sent / seconds:,.0f} records/s")


if __name__ == "__main__":
    main()
