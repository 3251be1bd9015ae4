#!/usr/bin/env python3
"""A misbehaving HTTP/1.1 server on 127.0.0.1 for thumbgen's fetching tests.

Usage: python3 fault_server.py --root DIR [--port 0] [--lifetime 600] [--verbose]

Prints exactly one line, `PORT <n>`, then serves until SIGTERM, until --lifetime seconds
pass, or until the process that started it goes away, so it can never outlive a test run.
Standard library only (Debian 12's python3).

Routes (NAME is a file under --root; a missing one is a 404):
  GET /img/NAME                 the file: Content-Type from the name, Content-Length, a strong
                                ETag (content hash), Last-Modified; If-None-Match and
                                If-Modified-Since answer 304
  GET /delay/MS/NAME            waits MS milliseconds, then as /img
  GET /stall/BYTES/NAME         full Content-Length, BYTES bytes, then silence on an open socket
  GET /reset/BYTES/NAME         full Content-Length, BYTES bytes, then a TCP RST
  GET /truncate/NAME            full Content-Length, half the body, then a normal close
  GET /redirect/N/NAME          302 to /redirect/N-1/NAME; /redirect/0/NAME to /img/NAME
  GET /loop                     302 to /loop
  GET /redirect-to?url=U        302 to U (`&code=301|303|307|308` picks another status)
  GET /status/CODE              that status and a short text body
  GET /flaky/K/CODE/NAME        the first K requests for this path (query included) answer
                                CODE, later ones as /img
  GET /gzip/NAME                gzip-encoded when Accept-Encoding allows it, else plain
  GET /big/BYTES                BYTES of deterministic non-image data; `?chunked=1` streams it
                                chunked, without Content-Length
  GET /_counts                  JSON: {path_with_query: requests, "_connections": n,
                                "_conditional": {path: n}, "_last_headers": {path: {...}}} (User-Agent, Accept-Encoding,
                                Authorization, X-Source-Token and If-Modified-Since, when sent)
  POST /_reset                  clears everything /_counts reports (and the flaky counters)

Query options where a file is served: max_age=N, no_store=1, no_cache=1 (Cache-Control),
expires=N (seconds ahead), etag=X (replaces the ETag), no_etag=1 (sends none), type=T (replaces
Content-Type), date_form=rfc850|asctime (Last-Modified and Expires in that obsolete form, which
RFC 9110 §5.6.7 requires a recipient to read; If-Modified-Since is read in IMF-fixdate only, the
one form a sender may send);
retry_after=S adds Retry-After to /status and to the failures of /flaky.
"""

import argparse
import calendar
import email.utils
import gzip
import hashlib
import json
import mimetypes
import os
import select
import signal
import socket
import struct
import sys
import termios
import threading
import time
from fcntl import ioctl
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote, urlsplit

def http_date(seconds, form=None):
    """SECONDS as an HTTP date: IMF-fixdate, or the obsolete rfc850 or asctime form."""
    t = time.gmtime(seconds)
    if form == "rfc850":
        return time.strftime("%A, %d-%b-%y %H:%M:%S GMT", t)
    if form == "asctime":
        return time.strftime("%a %b ", t) + ("%2d" % t.tm_mday) + time.strftime(" %H:%M:%S %Y", t)
    return email.utils.formatdate(seconds, usegmt=True)


# Names the platform's mime.types may lack.
EXTRA_TYPES = {".webp": "image/webp", ".avif": "image/avif", ".heic": "image/heic",
               ".heif": "image/heif", ".jxl": "image/jxl"}
# Errors that only mean the client went away.
CLIENT_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)
# The pattern /big repeats: printable, and no image format's magic bytes.
BIG_PATTERN = bytes(range(0x20, 0x7F)) + b"\n"
CHUNK = 64 * 1024
CONTROL_PATHS = ("/_counts", "/_reset")
# The request headers /_counts shows for each path's last request (credentials tests look for
# the last two, which must reach only the origin they are for).
RECORDED_HEADERS = ("User-Agent", "Accept-Encoding", "Authorization", "X-Source-Token", "If-Modified-Since")

stopping = threading.Event()


class Tally:
    """What /_counts reports, shared by every connection's thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.clear()

    def clear(self):
        # `generation` tells connections counted before a reset to count themselves again.
        self.requests, self.conditional, self.last_headers = {}, {}, {}
        self.connections = 0
        self.generation = getattr(self, "generation", 0) + 1

    def record(self, handler):
        """Counts one request; returns how many this path has had, this one included."""
        path = handler.path
        with self.lock:
            if handler.counted_generation != self.generation:
                handler.counted_generation = self.generation
                self.connections += 1
            self.requests[path] = self.requests.get(path, 0) + 1
            if "If-None-Match" in handler.headers or "If-Modified-Since" in handler.headers:
                self.conditional[path] = self.conditional.get(path, 0) + 1
            self.last_headers[path] = {
                name: handler.headers[name]
                for name in RECORDED_HEADERS if name in handler.headers}
            return self.requests[path]

    def snapshot(self):
        with self.lock:
            result = dict(self.requests)
            result["_connections"] = self.connections
            result["_conditional"] = dict(self.conditional)
            result["_last_headers"] = {k: dict(v) for k, v in self.last_headers.items()}
            return result


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address, root, verbose):
        self.root = os.path.realpath(root)
        self.verbose = verbose
        self.tally = Tally()
        super().__init__(address, Handler)

    def handle_error(self, request, client_address):
        error = sys.exc_info()[1]
        if isinstance(error, CLIENT_GONE) or (isinstance(error, OSError) and stopping.is_set()):
            return
        super().handle_error(request, client_address)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fault_server/1"
    # Headers and body go out in separate writes; without this, Nagle plus the client's
    # delayed ACK can add ~40 ms to every keep-alive response.
    disable_nagle_algorithm = True
    counted_generation = 0

    # -- plumbing -------------------------------------------------------------------------

    def log_message(self, format, *args):
        if self.server.verbose:
            super().log_message(format, *args)

    def do_GET(self):
        self.dispatch()

    def do_HEAD(self):
        self.dispatch()

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        if urlsplit(self.path).path == "/_reset":
            with self.server.tally.lock:
                self.server.tally.clear()
            self.send_text(200, "reset\n")
        else:
            self.send_text(405, "only POST /_reset\n")

    def dispatch(self):
        url = urlsplit(self.path)
        self.query = dict(parse_qsl(url.query))
        parts = url.path.split("/")[1:]
        route, args = (parts[0], parts[1:]) if parts else ("", [])
        if url.path in CONTROL_PATHS:
            if route == "_counts":
                self.send_body(200, json.dumps(self.server.tally.snapshot(), indent=1).encode(),
                               {"Content-Type": "application/json", "Cache-Control": "no-store"})
            else:
                self.send_text(405, "POST /_reset\n")
            return
        count = self.server.tally.record(self)
        method = getattr(self, "route_" + route.replace("-", "_"), None)
        try:
            if method is None:
                raise NotFound
            method(args, count)
        except (NotFound, ValueError, IndexError):
            self.send_text(404, "not found: %s\n" % url.path)

    # -- routes ---------------------------------------------------------------------------

    def route_img(self, args, count):
        self.serve_file(self.name(args))

    def route_delay(self, args, count):
        milliseconds = int(args[0])
        name = self.name(args[1:])
        stopping.wait(milliseconds / 1000)
        self.serve_file(name)

    def route_stall(self, args, count):
        sent = self.send_prefix(int(args[0]), self.name(args[1:]))
        if sent is not None:
            self.close_connection = True
            self.hold_open()

    def route_reset(self, args, count):
        sent = self.send_prefix(int(args[0]), self.name(args[1:]))
        if sent is not None:
            self.close_connection = True
            self.abort_connection()

    def route_truncate(self, args, count):
        body, headers = self.file_response(self.name(args))
        self.send_head(200, headers)
        if self.command != "HEAD":
            self.wfile.write(body[: len(body) // 2])
        self.close_connection = True

    def route_redirect(self, args, count):
        hops = int(args[0])
        name = "/".join(args[1:])
        if hops < 0 or not name:
            raise NotFound
        target = "/img/%s" % name if hops == 0 else "/redirect/%d/%s" % (hops - 1, name)
        self.redirect(target + self.query_suffix())

    def route_loop(self, args, count):
        self.redirect("/loop")

    def route_redirect_to(self, args, count):
        if "url" not in self.query:
            raise NotFound
        self.redirect(self.query["url"], int(self.query.get("code", 302)))

    def route_status(self, args, count):
        self.send_status(int(args[0]))

    def route_flaky(self, args, count):
        failures, code = int(args[0]), int(args[1])
        name = self.name(args[2:])
        if count <= failures:
            self.send_status(code)
        else:
            self.serve_file(name)

    def route_gzip(self, args, count):
        self.serve_file(self.name(args), gzip_allowed=self.accepts_gzip())

    def route_big(self, args, count):
        size = int(args[0])
        if size < 0:
            raise NotFound
        chunked = self.query.get("chunked") == "1"
        headers = {"Content-Type": self.query.get("type", "application/octet-stream")}
        if chunked:
            headers["Transfer-Encoding"] = "chunked"
        else:
            headers["Content-Length"] = str(size)
        self.send_head(200, headers)
        if self.command == "HEAD":
            return
        offset = 0
        while offset < size:
            piece = big_bytes(offset, min(CHUNK, size - offset))
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            offset += len(piece)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")

    # -- responses ------------------------------------------------------------------------

    def name(self, args):
        """The file under --root that ARGS name, or NotFound (never anything outside root)."""
        relative = unquote("/".join(args))
        path = os.path.realpath(os.path.join(self.server.root, relative))
        if not relative or not path.startswith(self.server.root + os.sep) \
                or not os.path.isfile(path):
            raise NotFound
        return path

    def file_response(self, path, gzip_allowed=False):
        """The body and headers of a 200 for PATH, with the query's options applied."""
        with open(path, "rb") as f:
            body = f.read()
        mtime = os.stat(path).st_mtime
        etag = '"%s"' % hashlib.sha256(body).hexdigest()[:32]
        self.modified = int(mtime)
        headers = {"Last-Modified": http_date(mtime, self.query.get("date_form"))}
        if gzip_allowed:
            body = gzip.compress(body, mtime=0)
            etag = etag[:-1] + '-gzip"'
            headers["Content-Encoding"] = "gzip"
        if self.path.startswith("/gzip/"):
            headers["Vary"] = "Accept-Encoding"
        q = self.query
        if "etag" in q:
            etag = q["etag"] if q["etag"][:1] == '"' or q["etag"][:2] == "W/" else '"%s"' % q["etag"]
        if q.get("no_etag") != "1":
            headers["ETag"] = etag
        cache_control = []
        if "max_age" in q:
            cache_control.append("max-age=%d" % int(q["max_age"]))
        if q.get("no_store") == "1":
            cache_control.append("no-store")
        if q.get("no_cache") == "1":
            cache_control.append("no-cache")
        if cache_control:
            headers["Cache-Control"] = ", ".join(cache_control)
        if "expires" in q:
            headers["Expires"] = http_date(time.time() + int(q["expires"]), q.get("date_form"))
        headers["Content-Type"] = q.get("type") or guess_type(path)
        headers["Content-Length"] = str(len(body))
        return body, headers

    def serve_file(self, path, gzip_allowed=False):
        body, headers = self.file_response(path, gzip_allowed)
        if self.not_modified(headers):
            # A 304 carries the validators and freshness fields, not the body's metadata.
            for name in ("Content-Length", "Content-Type", "Content-Encoding"):
                headers.pop(name, None)
            self.send_head(304, headers)
            return
        self.send_head(200, headers)
        if self.command != "HEAD":
            self.wfile.write(body)

    def not_modified(self, headers):
        """RFC 9110 §13.2.2: If-None-Match decides when present, else If-Modified-Since."""
        if_none_match = self.headers.get("If-None-Match")
        if if_none_match is not None:
            strip = lambda tag: tag.strip().removeprefix("W/")
            tags = [strip(tag) for tag in if_none_match.split(",")]
            return "*" in tags or ("ETag" in headers and strip(headers["ETag"]) in tags)
        if_modified_since = self.headers.get("If-Modified-Since")
        if if_modified_since is not None:
            try:
                since = calendar.timegm(time.strptime(if_modified_since, "%a, %d %b %Y %H:%M:%S GMT"))
            except ValueError:
                return False  # not an IMF-fixdate: ignored, as RFC 9110 §13.1.3 says
            return self.modified <= since
        return False

    def send_prefix(self, count, path):
        """Headers promising all of PATH, then only its first COUNT bytes; None for HEAD."""
        body, headers = self.file_response(path)
        self.send_head(200, headers)
        if self.command == "HEAD":
            return None
        self.wfile.write(body[: max(0, count)])
        return count

    def hold_open(self):
        """Sends nothing more; returns when the client closes or the server stops."""
        connection = self.connection
        while not stopping.is_set():
            readable, _, _ = select.select([connection], [], [], 0.5)
            if readable:
                try:
                    if not connection.recv(CHUNK):
                        return
                except OSError:
                    return

    def abort_connection(self):
        """Closes with a TCP RST (SO_LINGER on, timeout 0) once the client has the bytes."""
        connection = self.connection
        # A linger-0 close discards whatever is still queued, so wait (bounded) until the
        # peer has acknowledged everything; SIOCOUTQ is TIOCOUTQ on Linux.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not stopping.is_set():
            queued = struct.unpack("i", ioctl(connection.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
            if queued == 0:
                break
            time.sleep(0.005)
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        # socket.close() would only drop a reference while rfile/wfile hold theirs; closing
        # the descriptor itself is what makes the kernel send the RST now.
        os.close(connection.detach())

    def redirect(self, location, code=302):
        self.send_body(code, b"redirecting to %s\n" % location.encode(),
                       {"Location": location, "Content-Type": "text/plain"})

    def send_status(self, code):
        headers = {"Content-Type": "text/plain"}
        if "retry_after" in self.query:
            headers["Retry-After"] = self.query["retry_after"]
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "Status"
        no_body = code < 200 or code in (204, 304)
        self.send_body(code, b"" if no_body else ("%d %s\n" % (code, phrase)).encode(), headers,
                       content_length=not no_body)

    def send_text(self, code, text):
        self.send_body(code, text.encode(), {"Content-Type": "text/plain"})

    def send_body(self, code, body, headers, content_length=True):
        if content_length:
            headers["Content-Length"] = str(len(body))
        self.send_head(code, headers)
        if self.command != "HEAD" and body:
            self.wfile.write(body)

    def send_head(self, code, headers):
        self.send_response(code)
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()

    def accepts_gzip(self):
        for item in self.headers.get("Accept-Encoding", "").split(","):
            token, _, params = item.strip().partition(";")
            if token.strip().lower() in ("gzip", "x-gzip", "*"):
                q = params.strip().replace(" ", "")
                return not (q.startswith("q=") and float(q[2:] or 0) == 0)
        return False

    def query_suffix(self):
        query = urlsplit(self.path).query
        return "?" + query if query else ""


class NotFound(Exception):
    pass


def guess_type(path):
    extension = os.path.splitext(path)[1].lower()
    return EXTRA_TYPES.get(extension) or mimetypes.guess_type(path)[0] or "application/octet-stream"


def big_bytes(offset, length):
    """LENGTH bytes of /big's body starting at OFFSET (the pattern repeated)."""
    period = len(BIG_PATTERN)
    start = offset % period
    repeats = (start + length) // period + 1
    return (BIG_PATTERN * repeats)[start:start + length]


def main():
    # Foundation's Process on Linux starts children with the spawning thread's signal mask,
    # and the test runner's worker threads block SIGTERM; without this it would be ignored.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    parser = argparse.ArgumentParser(description="A misbehaving HTTP server for tests.")
    parser.add_argument("--root", required=True, help="folder whose files the routes serve")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1; 0 picks one")
    parser.add_argument("--lifetime", type=float, default=600, help="seconds before exiting")
    parser.add_argument("--verbose", action="store_true", help="log each request to stderr")
    options = parser.parse_args()
    if not os.path.isdir(options.root):
        parser.error("--root %s is not a folder" % options.root)

    server = Server(("127.0.0.1", options.port), options.root, options.verbose)
    signal.signal(signal.SIGTERM, lambda *_: stopping.set())
    signal.signal(signal.SIGINT, lambda *_: stopping.set())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print("PORT %d" % server.server_address[1], flush=True)
    # The starter may stop reading (or close) the pipe now; nothing else goes to stdout.
    sys.stdout = open(os.devnull, "w")

    parent = os.getppid()
    deadline = time.monotonic() + options.lifetime
    while not stopping.wait(0.25):
        if time.monotonic() >= deadline or os.getppid() != parent:
            break
    stopping.set()
    # Connection threads may be stalled on purpose; do not wait for them.
    os._exit(0)


if __name__ == "__main__":
    main()
