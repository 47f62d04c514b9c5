#!/usr/bin/env python3
"""What a webhook claim costs in SQLite as the outbox grows: the queries of
Sources/ListStore/SQLite/SQLiteStore+Outbox.swift over the outbox table and indexes of
Sources/ListStore/SQLite/SQLiteSchema.swift (read from the Swift source), in Python's SQLite, in
memory, with ROWS rows of one webhook of which 0, 1 in 1,000, 1 in 100, 1 in 25 or all are due.
Prints milliseconds a claim: counting the due rows, and claiming 16 by reading the due rows alone
or every row of the webhook (the threshold between the two is `fewDue`, 4,000), and, for comparison, the
claim as it was before `outbox_due`. Another webhook holds as many rows, all waiting for a retry.

    Benchmarks/outbox-claims.py [ROWS]      ROWS: 100,000 by default
"""
import json
import re
import sqlite3
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WHERE = "WHERE webhook IN (SELECT value FROM json_each(?)) AND due_at <= ? AND coalesce(claimed_until, 0) <= ?"
ORDER = "ORDER BY pending_since, webhook, list, partition_key LIMIT ?"
COLUMNS = "webhook, list, partition_key, user_json, version, attempts"


def outbox_schema(indexes=True):
    """The Swift migrations' statements that make or change the outbox table, in order (without
    its index: as it was before it)."""
    text = (ROOT / "Sources/ListStore/SQLite/SQLiteSchema.swift").read_text()
    statements = []
    blocks = re.findall(r'"""(.*?)"""|"((?:CREATE|ALTER|DROP) [^"]*)"', text, re.S)
    for block in (triple or single for triple, single in blocks):
        for statement in block.split(";"):
            statement = statement.strip()
            if "outbox" in statement and not statement.startswith("UPDATE") \
                    and (indexes or not statement.startswith("CREATE INDEX")):
                statements.append(statement.strip())
    return statements


def timed(connection, sql, arguments, rounds=20):
    started = time.perf_counter()
    for _ in range(rounds):
        connection.execute(sql, arguments).fetchall()
    return (time.perf_counter() - started) / rounds * 1000


def outbox(rows, indexes):
    connection = sqlite3.connect(":memory:")
    for statement in outbox_schema(indexes):
        connection.execute(statement)
    connection.executemany(
        "INSERT INTO outbox (webhook, list, partition_key, version, pending_since, due_at) VALUES ('h', 'inbox', ?, ?, ?, 0)",
        ((f"s:u{i}", i, i) for i in range(rows)))
    return connection


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    connection, unindexed = outbox(rows, True), outbox(rows, False)
    # Another webhook's rows, all waiting for a retry, in both.
    for db in (connection, unindexed):
        db.executemany("INSERT INTO outbox (webhook, list, partition_key, version, pending_since, due_at) "
                       "VALUES ('other', 'inbox', ?, ?, ?, 9999999)", ((f"s:u{i}", i, i) for i in range(rows)))
    names, now = json.dumps(["h"]), 1_000
    count = f"SELECT count(*) FROM (SELECT 1 FROM outbox INDEXED BY outbox_due {WHERE} LIMIT 4000)"
    few = f"SELECT {COLUMNS} FROM outbox INDEXED BY outbox_due {WHERE} {ORDER}"
    many = f"SELECT {COLUMNS} FROM outbox {WHERE.replace('due_at', '+due_at')} {ORDER}"
    before = f"SELECT {COLUMNS} FROM outbox {WHERE} {ORDER}"
    print(f"SQLite {sqlite3.sqlite_version}; {rows:,} outbox rows of the webhook claimed, as many of another; "
          "milliseconds a claim of 16")
    print("| due | counting them | claim, few due (those) | claim, many due (every row) | the claim before `outbox_due` |")
    print("|---:|---:|---:|---:|---:|")
    for every in [0, 1000, 100, 25, 1]:
        for db in (connection, unindexed):
            db.execute("UPDATE outbox SET due_at = 9999999 WHERE webhook = 'h'")
            if every:
                # The due rows are the newest (the oldest wait for a retry), the case that costs most.
                db.execute("UPDATE outbox SET due_at = 0 WHERE webhook = 'h' AND pending_since >= ?", (rows - rows // every,))
        due = rows // every if every else 0
        figures = [timed(db, sql, (names, now, now) if sql == count else (names, now, now, 16), 5)
                   for db, sql in ((connection, count), (connection, few), (connection, many), (unindexed, before))]
        print(f"| {due:,} | " + " | ".join(f"{f:.3f}" for f in figures) + " |")


if __name__ == "__main__":
    main()
