"""dcgm_state.py - the state the gpu_xid stand-ins share (test_gpu_xid.sh).

GL_DCGMI_STATE names a log of injections, one JSON object a line:
{"t": unix time, "gpu": N, "field": F, "value": V}. A field's reading is
the value of its last injection while that injection is younger than
GL_DCGMI_EXPIRE seconds (default 3), else 0: in DCGM an injected value is
one sample, replaced by the next real one, which is why gpu_xid renews it.
GL_DCGMI_GPUS lists the GPUs the stand-in has (default "0,1").
"""
import json
import os
import time

STATE = os.environ.get("GL_DCGMI_STATE", "")
EXPIRE = float(os.environ.get("GL_DCGMI_EXPIRE", "3"))
GPUS = [int(g) for g in os.environ.get("GL_DCGMI_GPUS", "0,1").split(",")]


def injections(path=None):
    out = []
    try:
        with open(path or STATE) as f:
            for line in f:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
    except FileNotFoundError:
        pass
    return out


def reading(gpu, field, path=None, now=None):
    now = time.time() if now is None else now
    last = None
    for r in injections(path):
        if r["gpu"] == gpu and r["field"] == field:
            last = r
    if last is None or now - last["t"] >= EXPIRE:
        return 0
    return last["value"]


def record(gpu, field, value):
    with open(STATE, "a") as f:
        f.write(json.dumps({"t": time.time(), "gpu": gpu, "field": field, "value": value}) + "\n")
