#!/usr/bin/env python3
"""k8s_deploy_mock.py - a stand-in for the Kubernetes API server, for the
model_swap fault's kubernetes method (real Kubernetes cannot run on the test
machines). Plain HTTP on 127.0.0.1. It answers only what a swap asks, the way
the API documents it, and CHECKS each request: method, path, Content-Type,
bearer token, and that every JSON Patch is one: ops from RFC 6902, applied
atomically (a failed "test" changes nothing and answers 422, as the API
server does), and that a swap's patch begins by testing something (the
resourceVersion or the saved annotation). Anything else is answered 4xx and
recorded as an error.

State: one Deployment serving/vllm (2 replicas, one container "vllm"). A
change of spec.template bumps metadata.generation and starts a simulated
rollout: the controller observes it after 0.3 s, the new pods are all
updated and available, the old ones gone, 0.8 s after the change (one new
pod and three in all in between).

Every request is appended to LOG (JSON lines: method, path, content_type,
body, status, error); the deployment is written to STATE after each request.
The port goes to PORT_FILE once the server listens.

usage: k8s_deploy_mock.py PORT_FILE LOG STATE TOKEN
"""
import copy
import json
import os
import sys
import time

from mock_http import CheckingHandler, kstatus, serve

PORT_FILE, LOG, STATE, TOKEN = sys.argv[1:5]
PATH = "/apis/apps/v1/namespaces/serving/deployments/vllm"
dep = {
    "apiVersion": "apps/v1", "kind": "Deployment",
    "metadata": {"name": "vllm", "namespace": "serving", "generation": 1, "resourceVersion": "100",
                 "labels": {"app": "vllm"}, "annotations": {"deployment.kubernetes.io/revision": "1"}},
    "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "vllm"}},
             "template": {"metadata": {"labels": {"app": "vllm"}},
                          "spec": {"containers": [{"name": "vllm", "image": "vllm/vllm-openai:v0.6.3",
                                                   "args": ["--model", "meta-llama/Llama-3.1-8B-Instruct"]}]}}},
    "status": {"observedGeneration": 1, "replicas": 2, "updatedReplicas": 2, "readyReplicas": 2,
               "availableReplicas": 2},
}
changed_at = None     # when spec.template last changed


def status_now():
    st = dep["status"]
    if changed_at is None:
        return
    dt = time.time() - changed_at
    gen = dep["metadata"]["generation"]
    if dt < 0.3:
        return
    st["observedGeneration"] = gen
    if dt < 0.8:
        st.update(replicas=3, updatedReplicas=1, readyReplicas=3, availableReplicas=2)
    else:
        st.update(replicas=2, updatedReplicas=2, readyReplicas=2, availableReplicas=2)


def unescape(tok):
    return tok.replace("~1", "/").replace("~0", "~")


def resolve(doc, ptr):
    """(parent, key) of a JSON Pointer; raises on a missing parent."""
    if not ptr.startswith("/"):
        raise ValueError("pointer %r does not start with /" % ptr)
    toks = [unescape(t) for t in ptr[1:].split("/")]
    cur = doc
    for t in toks[:-1]:
        cur = cur[int(t)] if isinstance(cur, list) else cur[t]
    return cur, toks[-1]


def apply_patch(doc, ops):
    doc = copy.deepcopy(doc)
    for o in ops:
        if not isinstance(o, dict) or set(o) - {"op", "path", "value", "from"}:
            raise ValueError("bad op %r" % (o,))
        op, ptr = o.get("op"), o.get("path")
        parent, key = resolve(doc, ptr)
        if isinstance(parent, list):
            key = len(parent) if key == "-" else int(key)
        if op == "test":
            have = parent[key] if (isinstance(parent, list) and key < len(parent)) or (isinstance(parent, dict) and key in parent) else None
            if have != o.get("value"):
                raise LookupError("test of %s failed" % ptr)
        elif op == "add":
            if isinstance(parent, list):
                parent.insert(key, o["value"])
            else:
                parent[key] = o["value"]
        elif op == "replace":
            if isinstance(parent, dict) and key not in parent:
                raise ValueError("replace of missing %s" % ptr)
            parent[key] = o["value"]
        elif op == "remove":
            del parent[key]
        else:
            raise ValueError("unsupported op %r" % op)
    return doc


def save_state():
    with open(STATE + ".tmp", "w") as f:
        json.dump(dep, f)
    os.replace(STATE + ".tmp", STATE)


class H(CheckingHandler):
    LOG = LOG

    def save_state(self):
        save_state()

    def route(self, body, raw):
        global dep, changed_at
        status_now()
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.reply(401, kstatus(401, "Unauthorized", "Unauthorized"), "missing or wrong bearer token", body)
        if self.path != PATH:
            return self.reply(404, kstatus(404, "NotFound", "the server could not find the requested resource"),
                              "unexpected path " + self.path, body)
        if self.command == "GET" and body is None:
            return self.reply(200, dep, None, None)
        if self.command != "PATCH":
            return self.reply(405, kstatus(405, "MethodNotAllowed", "method not allowed"), "method " + self.command, body)
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        if ctype != "application/json-patch+json":
            return self.reply(415, kstatus(415, "UnsupportedMediaType", "bad content type"), "PATCH content type " + ctype, body)
        if not isinstance(body, list) or not body or body[0].get("op") != "test":
            return self.reply(422, kstatus(422, "Invalid", "expected a JSON Patch that tests first"),
                              "a patch that does not begin with a test", body)
        try:
            new = apply_patch(dep, body)
        except LookupError as e:
            return self.reply(422, kstatus(422, "Invalid", str(e)), None, body)
        except (ValueError, KeyError, IndexError, TypeError) as e:
            return self.reply(422, kstatus(422, "Invalid", "bad patch: %s" % e), "bad patch: %s" % e, body)
        if new["spec"]["template"] != dep["spec"]["template"]:
            new["metadata"]["generation"] += 1
            changed_at = time.time()
        new["metadata"]["resourceVersion"] = str(int(dep["metadata"]["resourceVersion"]) + 1)
        new["status"] = dep["status"]
        dep = new
        return self.reply(200, dep, None, body)


serve(H, PORT_FILE)
