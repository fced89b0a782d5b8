#!/usr/bin/env python3
"""redfish_mock.py - a mock BMC for tests/scripts/test_cplane.sh.

It serves one ComputerSystem over HTTPS on 127.0.0.1 and checks every request
the way a strict BMC would: the exact path, the method, HTTP basic auth, and
for the reset action the Content-Type (application/json) and a JSON body that
is exactly {"ResetType": <a ResetType this system allows>}. Anything else is
refused (401, 404, 405, 400 or 415) and logged as a violation. A reset does not
take effect at once: PowerState passes through PoweringOff/PoweringOn for
--transition seconds, so clients must poll.

Every request is appended to --log as one JSON line:
  {"method", "path", "status", "auth_ok", "content_type", "body", "violation"}
so the test can check exactly what gauntlet sent. The listening port goes to
--port-file once the socket is bound. --refuse-reset answers 401 to the reset
action only (credentials rotated between preflight and inject).

Real BMCs cannot be reached from the test machines; this mock follows the
DMTF Redfish schema for ComputerSystem.Reset (DSP0268) as far as a client sees.
"""
import argparse
import base64
import json
import ssl
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SYSTEM = "/redfish/v1/Systems/1"
RESET = SYSTEM + "/Actions/ComputerSystem.Reset"
ALLOWED = ["On", "ForceOff", "GracefulShutdown", "ForceRestart", "PowerCycle"]


class State:
    def __init__(self, transition):
        self.lock = threading.Lock()
        self.power = "On"
        self.target = None
        self.until = 0.0
        self.transition = transition

    def get(self):
        with self.lock:
            if self.target and time.monotonic() >= self.until:
                self.power, self.target = self.target, None
            return self.power

    def reset(self, kind):
        with self.lock:
            off = kind in ("ForceOff", "GracefulShutdown")
            self.target = "Off" if off else "On"
            self.power = "PoweringOff" if off else "PoweringOn"
            self.until = time.monotonic() + self.transition


def make_handler(args, state, log_lock):
    want = "Basic " + base64.b64encode(f"{args.user}:{args.password}".encode()).decode()

    class H(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *a):
            pass

        def record(self, status, body, violation=None):
            entry = {
                "method": self.command,
                "path": self.path,
                "status": status,
                "auth_ok": self.headers.get("Authorization") == want,
                "content_type": self.headers.get("Content-Type"),
                "body": body,
                "violation": violation,
            }
            with log_lock, open(args.log, "a") as f:
                f.write(json.dumps(entry) + "\n")

        def reply(self, status, obj=None, body_in=None, violation=None):
            self.record(status, body_in, violation)
            data = json.dumps(obj).encode() if obj is not None else b""
            self.send_response(status)
            if status == 401:
                self.send_header("WWW-Authenticate", 'Basic realm="mock-bmc"')
            if data:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if data:
                self.wfile.write(data)

        def read_body(self):
            n = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(n).decode("utf-8", "replace") if n > 0 else ""

        def err(self, msg):
            return {"error": {"code": "Base.1.0.GeneralError", "message": msg}}

        def do_GET(self):
            if self.path != SYSTEM:
                return self.reply(404, self.err("no such resource"), violation="GET of unknown path")
            if self.headers.get("Authorization") != want:
                return self.reply(401, self.err("authentication required"))
            self.reply(200, {"@odata.id": SYSTEM, "Id": "1", "Name": "mock system",
                             "PowerState": state.get(),
                             "Actions": {"#ComputerSystem.Reset": {"target": RESET,
                                         "ResetType@Redfish.AllowableValues": ALLOWED}}})

        def do_POST(self):
            body = self.read_body()
            if self.path != RESET:
                return self.reply(404 if self.path != SYSTEM else 405, self.err("not an action"), body,
                                  violation="POST to " + self.path)
            if self.headers.get("Authorization") != want or args.refuse_reset:
                return self.reply(401, self.err("authentication required"), body)
            ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
            if ctype != "application/json":
                return self.reply(415, self.err("expected application/json"), body,
                                  violation="content type " + repr(ctype))
            try:
                req = json.loads(body)
            except ValueError:
                return self.reply(400, self.err("malformed JSON"), body, violation="body is not JSON")
            if not isinstance(req, dict) or list(req.keys()) != ["ResetType"] or req["ResetType"] not in ALLOWED:
                return self.reply(400, self.err("expected {\"ResetType\": one of %s}" % ALLOWED), body,
                                  violation="bad body")
            state.reset(req["ResetType"])
            self.reply(204, None, body)

        def other(self):
            self.read_body()
            self.reply(405, self.err("method not allowed"), violation=self.command + " " + self.path)

        do_PUT = do_PATCH = do_DELETE = other

    return H


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cert", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--user", required=True)
    ap.add_argument("--password", required=True)
    ap.add_argument("--log", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--transition", type=float, default=0.5)
    ap.add_argument("--refuse-reset", action="store_true")
    args = ap.parse_args()

    state = State(args.transition)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), make_handler(args, state, threading.Lock()))
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    with open(args.port_file + ".tmp", "w") as f:
        f.write(str(srv.server_address[1]))
    import os
    os.rename(args.port_file + ".tmp", args.port_file)
    srv.serve_forever()


if __name__ == "__main__":
    main()
