#!/usr/bin/env python3
"""k8s_mock.py - a stand-in for the Kubernetes API server, for the
drain_worker fault's kubernetes method (real Kubernetes cannot run on the
test machines). Plain HTTP on 127.0.0.1. It answers only the requests a
drain makes, the way the API documents them, and CHECKS each one exactly:
method, path and query, Content-Type, JSON body, and the bearer token.
Anything else is answered 400/401/404 and recorded as an error.

It also answers the image read-back of manifest.json (harness/core/images.c):
GET /api/v1/namespaces/ml/pods?labelSelector=app=vllm lists the pods of
namespace "ml" with that label, their containerStatuses carrying image and
imageID as the kubelet reports them (a tagged image resolved to a digest,
an image named by digest, and a pod still pending, which has none). Any
other selector is answered 400.

State: one node (NODE) and pods on it: two ReplicaSet pods (default/web-1,
default/web-2), a DaemonSet pod, a mirror (static) pod, a finished pod, and
a pod on another node. The first eviction of web-1 is answered 429 (a
disruption budget says not now), so the client's retry is exercised.

Every request is appended to LOG (JSON lines: method, path, content_type,
body, status, error); the state (node unschedulable, pods left) is written
to STATE after each request. The port is written to PORT_FILE once the
server listens.

usage: k8s_mock.py PORT_FILE LOG STATE TOKEN NODE
"""
import json
import sys

from mock_http import CheckingHandler, kstatus as status, serve
from urllib.parse import urlsplit, parse_qs

PORT_FILE, LOG, STATE, TOKEN, NODE = sys.argv[1:6]
node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": NODE}, "spec": {}}


def pod(ns, name, node_name, owner=None, mirror=False, phase="Running"):
    md = {"name": name, "namespace": ns}
    if owner:
        md["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": owner, "name": name.rsplit("-", 1)[0],
                                  "controller": True}]
    if mirror:
        md["annotations"] = {"kubernetes.io/config.mirror": "abc123"}
    return {"metadata": md, "spec": {"nodeName": node_name}, "status": {"phase": phase}}


pods = [
    pod("default", "web-1", NODE, owner="ReplicaSet"),
    pod("default", "web-2", NODE, owner="ReplicaSet"),
    pod("kube-system", "node-agent-x7k2p", NODE, owner="DaemonSet"),
    pod("kube-system", "kube-apiserver-" + NODE, NODE, mirror=True),
    pod("default", "job-done", NODE, owner="Job", phase="Succeeded"),
    pod("default", "web-3", "other-node", owner="ReplicaSet"),
]
refused_once = set()
VLLM_DIGEST = "sha256:" + "3b" * 32
SIDECAR_DIGEST = "sha256:" + "c4" * 32


def image_pod(name, labels, statuses):
    p = {"metadata": {"name": name, "namespace": "ml", "labels": labels},
         "spec": {"nodeName": "gpu-7"}, "status": {"phase": "Running" if statuses else "Pending"}}
    if statuses:
        p["status"]["containerStatuses"] = [
            {"name": c, "image": img, "imageID": iid, "ready": True, "restartCount": 0,
             "state": {"running": {"startedAt": "2026-12-01T20:00:00Z"}}} for c, img, iid in statuses]
    return p


image_pods = [
    image_pod("vllm-0", {"app": "vllm"}, [
        ("vllm", "registry.example.com/vllm/vllm-openai:v0.6.3",
         "registry.example.com/vllm/vllm-openai@" + VLLM_DIGEST),
        ("metrics", "registry.example.com/ops/exporter@" + SIDECAR_DIGEST,
         "registry.example.com/ops/exporter@" + SIDECAR_DIGEST)]),
    image_pod("vllm-1", {"app": "vllm"}, []),
    image_pod("other-0", {"app": "other"}, [("x", "busybox:1.36", "docker.io/library/busybox@sha256:" + "0" * 64)]),
]


def save_state():
    with open(STATE + ".tmp", "w") as f:
        json.dump({"unschedulable": bool(node["spec"].get("unschedulable")),
                   "pods": [p["metadata"]["namespace"] + "/" + p["metadata"]["name"] for p in pods]}, f)
    import os
    os.replace(STATE + ".tmp", STATE)


class H(CheckingHandler):
    LOG = LOG

    def save_state(self):
        save_state()

    def route(self, body, raw):
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.reply(401, status(401, "Unauthorized", "Unauthorized"), "missing or wrong bearer token", raw)
        u = urlsplit(self.path)
        parts = u.path.strip("/").split("/")
        ctype = (self.headers.get("Content-Type") or "").split(";")[0].strip()
        m = self.command
        # GET/PATCH /api/v1/nodes/NODE
        if parts[:3] == ["api", "v1", "nodes"] and len(parts) == 4:
            if parts[3] != NODE:
                return self.reply(404, status(404, "NotFound", 'nodes "%s" not found' % parts[3]), "unknown node " + parts[3], raw)
            if m == "GET" and not u.query and body is None:
                return self.reply(200, node, None, raw)
            if m == "PATCH":
                if ctype != "application/merge-patch+json":
                    return self.reply(415, status(415, "UnsupportedMediaType", "bad content type"),
                                      "PATCH content type " + ctype, raw)
                if body not in ({"spec": {"unschedulable": True}}, {"spec": {"unschedulable": False}}):
                    return self.reply(400, status(400, "BadRequest", "unexpected patch"), "unexpected patch body", raw)
                node["spec"]["unschedulable"] = body["spec"]["unschedulable"]
                if not node["spec"]["unschedulable"]:
                    node["spec"].pop("unschedulable")
                return self.reply(200, node, None, raw)
        # GET /api/v1/namespaces/ml/pods?labelSelector=app=vllm (the image read-back)
        if parts == ["api", "v1", "namespaces", "ml", "pods"] and m == "GET" and body is None:
            q = parse_qs(u.query)
            if q != {"labelSelector": ["app=vllm"]}:
                return self.reply(400, status(400, "BadRequest", "bad selector"), "pod list query is not labelSelector=app=vllm: " + u.query, raw)
            items = [p for p in image_pods if p["metadata"]["labels"].get("app") == "vllm"]
            return self.reply(200, {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}, None, raw)
        # GET /api/v1/pods?fieldSelector=spec.nodeName=NODE
        if parts == ["api", "v1", "pods"] and m == "GET" and body is None:
            q = parse_qs(u.query)
            if "fieldSelector=spec.nodeName%3D" not in u.query or q.get("fieldSelector") != ["spec.nodeName=" + NODE]:
                return self.reply(400, status(400, "BadRequest", "bad selector"), "pod list without fieldSelector spec.nodeName=" + NODE, raw)
            items = [p for p in pods if p["spec"]["nodeName"] == NODE]
            return self.reply(200, {"kind": "PodList", "apiVersion": "v1", "metadata": {}, "items": items}, None, raw)
        # POST /api/v1/namespaces/NS/pods/NAME/eviction
        if len(parts) == 7 and parts[:3] == ["api", "v1", "namespaces"] and parts[4] == "pods" and parts[6] == "eviction" and m == "POST":
            ns, name = parts[3], parts[5]
            if ctype != "application/json":
                return self.reply(415, status(415, "UnsupportedMediaType", "bad content type"), "eviction content type " + ctype, raw)
            want = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name, "namespace": ns}}
            if body != want:
                return self.reply(400, status(400, "BadRequest", "bad eviction"), "eviction body is not " + json.dumps(want), raw)
            p = next((p for p in pods if p["metadata"]["name"] == name and p["metadata"]["namespace"] == ns), None)
            if p is None:
                return self.reply(404, status(404, "NotFound", 'pods "%s" not found' % name), None, raw)
            if p["spec"]["nodeName"] != NODE:
                return self.reply(201, {"kind": "Status", "status": "Success"}, "evicted a pod of another node", raw)
            kinds = [o["kind"] for o in p["metadata"].get("ownerReferences", [])]
            if "DaemonSet" in kinds or "kubernetes.io/config.mirror" in p["metadata"].get("annotations", {}):
                pods.remove(p)
                return self.reply(201, {"kind": "Status", "status": "Success"}, "evicted a DaemonSet or mirror pod", raw)
            if name == "web-1" and name not in refused_once:
                refused_once.add(name)
                return self.reply(429, status(429, "TooManyRequests",
                                              "Cannot evict pod as it would violate the pod's disruption budget."), None, raw)
            pods.remove(p)
            return self.reply(201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}, None, raw)
        return self.reply(404, status(404, "NotFound", "the server could not find the requested resource"),
                          "unexpected request %s %s" % (m, self.path), raw)



serve(H, PORT_FILE)
