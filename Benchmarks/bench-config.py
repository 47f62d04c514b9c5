#!/usr/bin/env python3
"""Writes the configuration the load benchmarks serve: the demo's `contacts` list alone, on SQLite.

    Benchmarks/bench-config.py WORK      writes WORK/config.json (records in WORK/db.sqlite)

Only the list every scenario reads: the demo's directory list reads the same people, and kept
resident it doubled the rows each write moves and each record's memory (+408 bytes per record).
Connection limits are raised for wrk's 32 connections and the event-stream benchmark's 1,000,
all from 127.0.0.1.
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    work = sys.argv[1]
    config = json.load(open("config/sectional.json"))
    config.pop("seed")
    config["lists"] = {"contacts": config["lists"]["contacts"]}
    config["storage"] = {"kind": "sqlite", "path": f"{work}/db.sqlite"}
    config["server"]["connectionLimit"] = 4000
    config["server"]["perClientConnectionLimit"] = 0  # every benchmark client is 127.0.0.1
    config["server"]["maxEventStreams"] = 2000
    json.dump(config, open(f"{work}/config.json", "w"))


if __name__ == "__main__":
    main()
