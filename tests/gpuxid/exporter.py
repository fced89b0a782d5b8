#!/usr/bin/env python3
"""exporter.py - a stand-in DCGM exporter for test_gpu_xid.sh: GET /metrics
serves DCGM_FI_DEV_XID_ERRORS for each stand-in GPU from the dcgmi
stand-in's state (dcgm_state.py), as dcgm-exporter prints it.
usage: exporter.py PORT_FILE   (GL_DCGMI_STATE in the environment)"""
import os
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dcgm_state as ds  # noqa: E402


class H(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        if self.path != "/metrics":
            self.send_error(404)
            return
        lines = ["# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.",
                 "# TYPE DCGM_FI_DEV_XID_ERRORS gauge"]
        for g in ds.GPUS:
            lines.append('DCGM_FI_DEV_XID_ERRORS{gpu="%d",UUID="GPU-0000000%d",device="nvidia%d",Hostname="gpu-a"} %d'
                         % (g, g, g, ds.reading(g, 230)))
        body = ("\n".join(lines) + "\n").encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(srv.server_address[1]))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
