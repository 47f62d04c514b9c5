#!/usr/bin/env python3
"""Writes the request paths the look-up scenarios pick from at random, read off a running server.

    Benchmarks/targets.py BASE_URL WORK      reads WORK/people.json, writes WORK/*.txt

tags.txt, rows.txt and ranges.txt: 5,000 tag look-ups, row-id look-ups and 20-row section ranges
(seeded: every run asks the same); pages.txt: the first 1,000 page tokens of a walk by 50 rows
(pages 2 to 1,001); mixed.txt: the mixed scenario's reads, 2,500 tags and 500 pages.
"""
import json
import random
import sys
import urllib.request


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    base, work = sys.argv[1], sys.argv[2]
    get = lambda path: json.load(urllib.request.urlopen(base + path))
    random.seed(7)
    outline = get("/v1/lists/contacts")
    tags = outline["tagCount"]
    with open(f"{work}/tags.txt", "w") as f:
        for _ in range(5000):
            f.write(f"/v1/lists/contacts/tags/{random.randrange(tags)}\n")
    # Ids as the generator writes them (their width follows the count: p-000001 … p-100000).
    ids = [person["id"] for person in json.load(open(f"{work}/people.json"))]
    with open(f"{work}/rows.txt", "w") as f:
        for _ in range(5000):
            f.write(f"/v1/lists/contacts/rows/{random.choice(ids)}\n")
    visible = [s for s in outline["sections"] if s["rowCount"] > 0]
    with open(f"{work}/ranges.txt", "w") as f:
        for _ in range(5000):
            s = random.choice(visible)
            f.write(f"/v1/lists/contacts/sections/{s['index']}/rows?start={random.randrange(s['rowCount'])}&count=20\n")
    tokens, token = [], None
    while len(tokens) < 1000:
        page = get("/v1/lists/contacts/rows?pageSize=50" + (f"&pageToken={token}" if token else ""))
        token = page.get("nextPageToken")
        if not token:
            break
        tokens.append(token)
    with open(f"{work}/pages.txt", "w") as f:
        for t in tokens:
            f.write(f"/v1/lists/contacts/rows?pageSize=50&pageToken={t}\n")
    with open(f"{work}/mixed.txt", "w") as f:
        for line in open(f"{work}/tags.txt").readlines()[:2500] + open(f"{work}/pages.txt").readlines()[:500]:
            f.write(line)


if __name__ == "__main__":
    main()
