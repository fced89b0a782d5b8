"""mock_http.py - what the request-checking API stand-ins share (k8s_mock.py,
k8s_deploy_mock.py): a handler that reads a JSON body (400 when it is not
JSON), answers JSON, appends every request to a JSON-lines log (method,
path, content type, body, status, the error the stand-in found, or null)
and saves the stand-in's state after each one; and the server start that
writes the port once listening. Subclasses set LOG, save_state and route,
which handle_any calls under one lock.
"""
import json
import os
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def kstatus(code, reason, message):
    """A Kubernetes Status object, as the API server answers errors."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason, "code": code}


class CheckingHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    LOG = None
    LOCK = threading.Lock()

    def log_message(self, *a):
        pass

    def save_state(self):
        pass

    def reply(self, code, obj, error=None, body_in=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        with open(self.LOG, "a") as f:
            f.write(json.dumps({"method": self.command, "path": self.path,
                                "content_type": self.headers.get("Content-Type"),
                                "body": body_in, "status": code, "error": error}) + "\n")
        self.save_state()

    def handle_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        body = None
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                return self.reply(400, kstatus(400, "BadRequest", "body is not JSON"), "body is not JSON",
                                  raw.decode(errors="replace"))
        with self.LOCK:
            return self.route(body, raw.decode(errors="replace") if raw else None)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = handle_any


def serve(handler, port_file):
    """Listen on 127.0.0.1 (a free port), save the state, write the port
    to port_file (atomically) and serve forever."""
    srv = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.save_state(None)
    with open(port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    os.replace(port_file + ".tmp", port_file)
    srv.serve_forever()
