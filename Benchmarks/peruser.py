#!/usr/bin/env python3
"""The client side of the per-user benchmark (Benchmarks/peruser.sh): loads orders spread over
users, and measures reads of their partitions with user tokens minted here (HS256, the server's
development secret), writes with the service token, and memory while every partition is read.

    peruser.py load  BASE RECORDS USERS              batch POSTs with the service token
    peruser.py cold  BASE USERS COUNT FILE           "path<TAB>token" lines for wrk: COUNT partitions never read
    peruser.py warm  BASE USERS COUNT FILE           reads COUNT partitions, writes "path<TAB>token" lines for wrk
    peruser.py resident BASE COUNT                   reads the partitions of users 0…COUNT-1 (before wrk writes into them)
    peruser.py sweep BASE USERS PID                  reads every partition in turn: peak and final RSS (MiB)
    peruser.py newcomers BASE COUNT PID              one order each for COUNT users never read: RSS before and after (MiB)

Environment: SECTIONAL_API_TOKEN (the service token), SECTIONAL_JWT_SECRET (the HS256 secret).
Record n is "o-%07d" % n, owned by user "u-%05d" % (n % USERS), so every user has RECORDS / USERS.
"""
import base64
import hashlib
import hmac
import http.client
import json
import os
import random
import sys
import time

STATUSES = ["Processing", "Shipped", "Delivered", "Cancelled"]
ITEMS = ["Espresso machine", "Milk frother", "Coffee beans", "Burr grinder", "Headlamp", "Rain jacket", "Sketchbook", "Easel"]


def user(n):
    return "u-%05d" % n


def order(n, users):
    return {"id": "o-%07d" % n, "owner": user(n % users), "status": STATUSES[n % 4], "item": ITEMS[n % 8],
            "total": round(5 + (n * 7919 % 50000) / 100, 2), "placedAt": "2026-%02d-%02d" % (1 + n % 12, 1 + n % 28)}


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(sub):
    secret = os.environ["SECTIONAL_JWT_SECRET"].encode()
    now = int(time.time())
    signing_input = b64(b'{"alg":"HS256","typ":"JWT"}') + "." + b64(json.dumps({"sub": sub, "iat": now, "exp": now + 86400}).encode())
    return signing_input + "." + b64(hmac.new(secret, signing_input.encode(), hashlib.sha256).digest())


class Client:
    def __init__(self, base):
        host, port = base.split("//")[1].split(":")
        self.connection = http.client.HTTPConnection(host, int(port))

    def request(self, method, path, headers=None, body=None):
        self.connection.request(method, path, body=body, headers=headers or {})
        answer = self.connection.getresponse()
        data = answer.read()
        return answer.status, data


def service_headers():
    return {"Authorization": "Bearer " + os.environ["SECTIONAL_API_TOKEN"], "Content-Type": "application/json"}


FIRST_PAGE = "/v1/lists/orders/rows?pageSize=50"


def read_first_page(client, sub):
    status, body = client.request("GET", FIRST_PAGE, {"Authorization": "Bearer " + token(sub)})
    assert status == 200, (status, body[:300])
    return body


def load(base, records, users):
    client, started, batch_size = Client(base), time.perf_counter(), 10_000
    for start in range(0, records, batch_size):
        body = json.dumps({"upsert": [order(n, users) for n in range(start, min(records, start + batch_size))]})
        status, answer = client.request("POST", "/v1/collections/orders/batch", service_headers(), body)
        assert status == 200, (status, answer[:300])
    seconds = time.perf_counter() - started
    print(f"{records} records over {users} users in {seconds:.1f} s ({records / seconds:,.0f} records/s)")


def cold(users, count, path_file):
    random.seed(3)
    with open(path_file, "w") as f:
        for n in random.sample(range(users), count):
            f.write(f"{FIRST_PAGE}\tBearer {token(user(n))}\n")


def warm(base, users, count, path_file):
    client = Client(base)
    with open(path_file, "w") as f:
        for n in range(count):
            read_first_page(client, user(n))
            f.write(f"{FIRST_PAGE}\tBearer {token(user(n))}\n")
    print(len(read_first_page(client, user(0))))


def resident(base, count):
    client = Client(base)
    for n in range(count):
        read_first_page(client, user(n))


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def sweep(base, users, pid):
    client, peak = Client(base), rss(pid)
    started = time.perf_counter()
    for n in range(users):
        read_first_page(client, user(n))
        if n % 250 == 0:
            peak = max(peak, rss(pid))
    peak = max(peak, rss(pid))
    print(f"{peak:.0f} {rss(pid):.0f} {time.perf_counter() - started:.1f}")


def newcomers(base, count, pid):
    """One order each for `count` new users ("n-%07d"), none of whom reads: a server whose users
    keep coming should not grow by something per user written (none of it is in memory)."""
    client, before, started = Client(base), rss(pid), time.perf_counter()
    for start in range(0, count, 5_000):
        body = json.dumps({"upsert": [dict(order(n, 1), id="n-%07d" % n, owner="n-%07d" % n)
                                      for n in range(start, min(count, start + 5_000))]})
        status, answer = client.request("POST", "/v1/collections/orders/batch", service_headers(), body)
        assert status == 200, (status, answer[:300])
    print(f"{before:.0f} {rss(pid):.0f} {time.perf_counter() - started:.1f}")


def main():
    command, base = sys.argv[1], sys.argv[2]
    if command == "load":
        load(base, int(sys.argv[3]), int(sys.argv[4]))
    elif command == "cold":
        cold(int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif command == "warm":
        warm(base, int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif command == "resident":
        resident(base, int(sys.argv[3]))
    elif command == "sweep":
        sweep(base, int(sys.argv[3]), int(sys.argv[4]))
    elif command == "newcomers":
        newcomers(base, int(sys.argv[3]), int(sys.argv[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
