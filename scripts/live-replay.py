#!/usr/bin/env python3
"""Replays what a NetBox release answered to the live-check rows of its ground truth
(tests/fixtures/live/answers.tsv.gz, one dataset: `4.6.8`, `4.6.8-sweep`, `4.6.8-instance`, ...) on
a loopback port, for the editor end-to-end tests of `Verify against NetBox`. The same answers as
tests/live_replay/mod.rs gives the Rust tests: a row's query gets a NetBox list body (`count`,
`next`, `previous`, `results`) or its refusal body; the bare endpoint the dataset's unfiltered count;
a GraphQL row its objects or error; anything else 404.

Strict: only GET of /api/<app>/<endpoint>/?... and POST /graphql/ (plus GET /api/status/, the
first request of a live check, which gets the dataset's release) are answered; any other method or path, a Host that is not this
loopback address, or a GraphQL mutation is a violation. Every request goes to LOG as one JSON line
{"method", "path", "host", "auth_ok", "violation"}.

Usage: scripts/live-replay.py DATASET TOKEN LOG
Prints `PORT <n>` on stdout once listening; serves until killed.
"""

import gzip
import http.server
import json
import os
import sys
import urllib.parse

DATASET, TOKEN, LOG = sys.argv[1], sys.argv[2], sys.argv[3]
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WANT = ("Bearer " if TOKEN.startswith("nbt_") else "Token ") + TOKEN


def pairs(query):
    """Decoded pairs without limit/offset, sorted (NetBox's filtersets ignore the order)."""
    out = [(k, v) for k, v in urllib.parse.parse_qsl(query, keep_blank_values=True) if k not in ("limit", "offset")]
    return sorted(out)


REST, BARE, GRAPHQL = {}, {}, {}
with gzip.open(os.path.join(ROOT, "tests/fixtures/live/answers.tsv.gz"), "rt", encoding="utf-8") as f:
    next(f)
    for line in f:
        c = line.rstrip("\n").split("\t")
        if DATASET not in c[0].split(","):
            continue
        endpoint, query, status, filtered, unfiltered, body = c[1], c[2], int(c[3]), c[4], c[5], c[6]
        row = (status, filtered, body)
        if endpoint == "graphql":
            GRAPHQL.setdefault(" ".join(query.split()), row)
            continue
        if unfiltered.isdigit():
            BARE.setdefault(endpoint, int(unfiltered))
        REST.setdefault((endpoint, tuple(pairs(query))), row)


def listing(n, host, path):
    results = [{"id": 1, "display": "object 1"}] if n else []
    nxt = f"http://{host}{path}{'&' if '?' in path else '?'}offset=1" if n > 1 else None
    return {"count": n, "next": nxt, "previous": None, "results": results}


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        host = self.headers.get("Host", "")
        path, _, query = self.path.partition("?")
        parts = [p for p in path.split("/") if p]
        listing_ok = (
            method == "GET" and path.startswith("/api/") and self.path.count("?") == 1 and 3 <= len(parts) <= 4
            and not any(p == ".." or p.isdigit() for p in parts)
        )
        graphql = method == "POST" and self.path == "/graphql/"
        status_check = method == "GET" and self.path == "/api/status/"
        # The editor builds the instance's knowledge from its OpenAPI document (approved by the
        # user's settings), as `index build --url` does: a read, never a list or a write.
        schema_read = method == "GET" and self.path == "/api/schema/?format=json"
        violation = None
        if not (listing_ok or graphql or status_check or schema_read):
            violation = f"{method} {self.path}"
        elif not host.startswith("127.0.0.1:"):
            violation = f"Host: {host}"
        elif graphql and any(w in json.loads(body or b"{}").get("query", "") for w in ("mutation", "subscription")):
            violation = "a GraphQL write"
        auth_ok = self.headers.get("Authorization") == WANT
        with open(LOG, "a", encoding="utf-8") as log:
            log.write(json.dumps({"method": method, "path": self.path, "host": host, "auth_ok": auth_ok,
                                  "violation": violation}) + "\n")
        if violation:
            return self.send(405, {"detail": "Method not allowed"})
        if not auth_ok:
            return self.send(403, {"detail": "Invalid v1 token"})
        if graphql:
            return self.graphql(body)
        if status_check:
            # The release of the dataset (`4.6.8-instance` -> 4.6.8), as NetBox's status says it.
            return self.send(200, {"netbox-version": DATASET.split("-")[0], "plugins": {}})
        endpoint = path[len("/api/"):].strip("/")
        got = tuple(pairs(query))
        if not got:
            if endpoint in BARE:
                return self.send(200, listing(BARE[endpoint], host, self.path))
            return self.send(404, {"detail": "Not found."})
        row = REST.get((endpoint, got))
        if row is None:
            return self.send(404, {"detail": "Not found."})
        status, filtered, refusal = row
        if status != 200:
            return self.send(status, json.loads(refusal) if refusal else {})
        if not filtered.isdigit():
            return self.send(200, {"count": None, "next": None, "previous": None, "results": []})
        return self.send(200, listing(int(filtered), host, self.path))

    def graphql(self, body):
        query = json.loads(body or b"{}").get("query", "")
        row = GRAPHQL.get(" ".join(query.split()))
        if row is None:
            return self.send(404, {"detail": "Not found."})
        _, filtered, error = row
        if error:
            return self.send(200, {"data": None, "errors": [{"message": error}]})
        rest = query[query.index("{") + 1:].lstrip()
        key = "".join(ch for ch in rest.split("(")[0].split("{")[0].split()[0] if ch.isalnum() or ch == "_")
        n = int(filtered) if filtered.isdigit() else 0
        return self.send(200, {"data": {key: [{"id": str(i)} for i in range(1, n + 1)]}})

    def send(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer("GET")

    def do_POST(self):
        self.answer("POST")

    def do_PUT(self):
        self.answer("PUT")

    def do_PATCH(self):
        self.answer("PATCH")

    def do_DELETE(self):
        self.answer("DELETE")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
