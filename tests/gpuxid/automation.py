#!/usr/bin/env python3
"""automation.py - the "cluster automation" stand-in for test_gpu_xid.sh:
it watches the dcgmi stand-in's state (GPU 0, field 230) every 0.1 s and,
DELAY seconds after it first sees an XID there, takes the node out of
service the way a health controller would: kubernetes: PATCH
/api/v1/nodes/NODE {"spec":{"unschedulable":true}} on k8s_mock.py; slurm:
creates the file the scontrol stand-in reads as DRAIN. It writes
"SEEN REACTED" (unix times) to OUT when done: the test's ground truth.
usage: automation.py OUT DELAY kubernetes URL NODE TOKEN | slurm DRAIN_FILE
"""
import json
import os
import sys
import time
import urllib.request

sys.dont_write_bytecode = True  # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dcgm_state as ds  # noqa: E402

out, delay, mode = sys.argv[1], float(sys.argv[2]), sys.argv[3]
while ds.reading(0, 230) == 0:
    time.sleep(0.1)
seen = time.time()
time.sleep(delay)
if mode == "kubernetes":
    url, node, token = sys.argv[4:7]
    req = urllib.request.Request(url + "/api/v1/nodes/" + node, method="PATCH",
                                 data=json.dumps({"spec": {"unschedulable": True}}).encode(),
                                 headers={"Content-Type": "application/merge-patch+json",
                                          "Authorization": "Bearer " + token})
    urllib.request.urlopen(req, timeout=5).read()
else:
    open(sys.argv[4], "w").close()
with open(out + ".tmp", "w") as f:
    f.write("%f %f\n" % (seen, time.time()))
os.replace(out + ".tmp", out)
