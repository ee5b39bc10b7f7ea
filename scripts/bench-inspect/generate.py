#!/usr/bin/env python3
"""Writes N capture lines (docs/capture-format.md) of Hermes pushes for bench-inspect.sh.

Every push is what the gateway sends (contract section 3), except one in every 1000, whose
body leaks a shell command; both push-inspect and the jq filter must find exactly those.
Lines come from per-type templates: json.dumps per line would make generating slower than
checking.
"""
import json
import sys
import time

n = int(sys.argv[1])
copy = {
    "approval": ("Approval needed", "Hermes needs your approval", 3600),
    "clarify": ("Input needed", "Hermes needs more information", 3600),
    "complete": ("Turn complete", "Hermes finished the turn", 86400),
    "error": ("Hermes hit an error", "Hermes ran into a problem", 86400),
}
now = int(time.time())
stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + ".000000Z"
token = "ab" * 32


def template(kind, body):
    title, _, interval = copy[kind]
    aps = {"alert": {"title": title, "body": body}, "sound": "default", "thread-id": "@SID@",
           "category": "HERMES_" + kind.upper()}
    if kind == "approval":
        aps["badge"] = 1
    payload = {"aps": aps, "session_id": "@SID@", "type": kind}
    raw = json.dumps(payload, separators=(",", ":"))
    record = {
        "v": 2, "seq": "@SEQ@", "kind": "push", "time": stamp, "env": "sandbox", "conn": 1, "method": "POST",
        "path": "/3/device/" + token,
        "headers": [["apns-topic", "com.example.app"], ["apns-push-type", "alert"], ["apns-priority", "10"],
                    ["apns-expiration", str(now + interval)], ["apns-collapse-id", kind + ":@SID@"],
                    ["apns-id", "@APNSID@"]],
        "device_token": token, "topic": "com.example.app", "push_type": "alert", "priority": 10,
        "expiration": now + interval, "collapse_id": kind + ":@SID@",
        # Compact JSON, so `parsed` alone holds the body (docs/capture-format.md, version 2).
        "payload": {"size": "@SIZE@", "parsed": payload},
        "status": 200, "apns_id": "@APNSID@", "unique_id": "@APNSID@",
    }
    line = json.dumps(record, separators=(",", ":")).replace("{", "{{").replace("}", "}}")
    line = line.replace('"@SEQ@"', "{seq}").replace('"@SIZE@"', "{size}")
    line = line.replace("@SID@", "{sid}").replace("@APNSID@", "{apns_id}")
    return line + "\n", len(raw.encode()) - 2 * len("@SID@")


kinds = list(copy)
good = {k: template(k, copy[k][1]) for k in kinds}
leaky = {k: template(k, "ran sudo rm -rf /srv/build") for k in kinds}
out = sys.stdout
buffer = []
for seq in range(1, n + 1):
    kind = kinds[seq % 4]
    line, base = (leaky if seq % 1000 == 0 else good)[kind]
    sid = "20261130_154126_%08x" % seq
    buffer.append(line.format(seq=seq, size=base + 2 * len(sid), sid=sid,
                              apns_id="8a2f1e3c-0000-4000-8000-%012x" % seq))
    if len(buffer) == 10000:
        out.write("".join(buffer))
        buffer.clear()
out.write("".join(buffer))
