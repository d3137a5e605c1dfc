#!/usr/bin/env python3
"""Replays what a customised NetBox 4.6.8 answered (tests/fixtures/instance/*.json.gz, captured
from a live instance with the netbox-bgp plugin and custom fields) on a loopback port, for the
end-to-end editor test. Needs the token given on the command line (`Token <40 hex>` or
`Bearer nbt_...`, as NetBox does), except for /api/schema/ (public, as on NetBox).

Usage: scripts/instance-replay.py FIXTURES_DIR TOKEN
Prints `PORT <n>` on stdout once listening; serves until killed.
"""

import gzip
import http.server
import os
import sys

FIXTURES, TOKEN = sys.argv[1], sys.argv[2]


def body(name):
    with gzip.open(os.path.join(FIXTURES, name), "rb") as f:
        return f.read()


ROUTES = {
    ("GET", "/api/status/"): "status.json.gz",
    ("GET", "/api/schema/?format=json"): "openapi.json.gz",
    ("POST", "/graphql/"): "graphql-introspection.json.gz",
    ("GET", "/api/extras/custom-fields/?limit=1000&offset=0"): "custom-fields.json.gz",
    ("GET", "/api/extras/custom-field-choice-sets/?limit=1000&offset=0"): "custom-field-choice-sets.json.gz",
}
WANT = ("Bearer " if TOKEN.startswith("nbt_") else "Token ") + TOKEN


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, method):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        name = ROUTES.get((method, self.path))
        public = self.path.startswith("/api/schema/")
        if name is None:
            self.send(404, "text/html; charset=utf-8", b"<!DOCTYPE html><title>Page Not Found</title>")
        elif not public and self.headers.get("Authorization") != WANT:
            self.send(403, "application/json", b'{"detail":"Invalid v1 token"}')
        else:
            self.send(200, "application/json", body(name))

    def send(self, status, ctype, data):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer("GET")

    def do_POST(self):
        self.answer("POST")


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("PORT", server.server_address[1], flush=True)
server.serve_forever()
