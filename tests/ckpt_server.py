#!/usr/bin/env python3
"""ckpt_server.py - a small HTTP server on 127.0.0.1 for the test of
tools/download_checkpoints.sh (download_test.sh): serves the files of a folder, honours
single Range requests (206, or 416 past the end), answers 404 for missing files, and
/cut/<file> announces the whole length but sends half the bytes before closing (a transfer
cut off). It writes the port it listens on to PORT_FILE and logs each request line with its
Range header to LOG_FILE, so the test can check that a resume asked for the remaining bytes.

    ckpt_server.py DIR PORT_FILE LOG_FILE
"""
import http.server
import os
import re
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    root = "."
    log_path = None

    def log_message(self, fmt, *args):  # quiet on stderr; requests go to the log file
        pass

    def do_GET(self):
        rng = self.headers.get("Range")
        with open(self.log_path, "a") as f:
            f.write("%s range=%s\n" % (self.path, rng or "-"))
        path = self.path
        cut = path.startswith("/cut/")
        if cut:
            path = path[len("/cut"):]
        name = os.path.basename(path)
        full = os.path.join(self.root, name)
        if not name or not os.path.isfile(full):
            self.send_error(404, "no such checkpoint")
            return
        data = open(full, "rb").read()
        start = 0
        m = re.fullmatch(r"bytes=(\d+)-", rng or "")
        if m:
            start = int(m.group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % len(data))
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(data) - 1, len(data)))
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        self.wfile.write(body[: len(body) // 2] if cut else body)
        self.wfile.flush()
        if cut:
            self.close_connection = True


def main():
    root, port_file, log_file = sys.argv[1:4]
    Handler.root = root
    Handler.log_path = log_file
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    tmp = port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.replace(tmp, port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
