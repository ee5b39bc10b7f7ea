/// A python client that builds requests exactly as the public hermes-mobile-push-plugin
/// does: compact `json.dumps(..., separators=(",", ":"), ensure_ascii=False)`, the HMAC
/// as `hmac.new(secret, canonical, sha256).hexdigest()`, urllib over HTTP/1.1, and in
/// capability mode one re-register and retry after 403 `invalid_capability`.
///
/// Run as `python3 -c script GATEWAY_URL MODE CA_FILE`; the secret comes from the
/// environment (`HERMES_PUSH_SECRET`). Prints one JSON line per push: type, status, body.
enum PluginClient {
    static let script = #"""
import hashlib, hmac, json, os, ssl, sys, urllib.error, urllib.request

base, mode, cafile = sys.argv[1], sys.argv[2], sys.argv[3]
context = ssl.create_default_context(cafile=cafile) if base.startswith("https") else None
COPY = {
    "approval": ("Approval needed", "Hermes needs your approval"),
    "clarify": ("Input needed", "Hermes needs more information"),
    "complete": ("Turn complete", "Hermes finished the turn"),
    "error": ("Hermes hit an error", "Hermes ran into a problem"),
}
TOKEN = "ab" * 32

def post(path, obj):
    data = json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    request = urllib.request.Request(base + path, data=data, method="POST", headers={
        "Content-Type": "application/json", "User-Agent": "hermes-push-plugin/1.0 (conformance test)"})
    try:
        with urllib.request.urlopen(request, timeout=5, context=context) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")

def canonical(payload):
    fields = {k: payload[k] for k in ("device_token", "apns_env", "type", "session_id", "title", "body")}
    if payload.get("thread_id"):
        fields["thread_id"] = payload["thread_id"]
    return json.dumps(fields, separators=(",", ":"), ensure_ascii=False)

capability = None
def register():
    status, body = post("/register", {"device_token": TOKEN})
    assert status == 200, (status, body)
    return json.loads(body)["capability"]

for kind, (title, text) in COPY.items():
    session = "20261130_154126_" + kind
    payload = {"device_token": TOKEN, "apns_env": "sandbox", "type": kind, "session_id": session,
               "title": title, "body": text, "thread_id": session}
    if mode == "hmac":
        secret = os.environ["HERMES_PUSH_SECRET"].encode("utf-8")
        payload["hmac"] = hmac.new(secret, canonical(payload).encode("utf-8"), hashlib.sha256).hexdigest()
        status, body = post("/push", payload)
    else:
        if capability is None:
            capability = "stale-capability-from-an-old-key" if kind == "approval" else register()
        status, body = post("/push", dict(payload, capability=capability))
        if status == 403 and json.loads(body).get("error") == "invalid_capability":
            capability = register()
            status, body = post("/push", dict(payload, capability=capability))
    print(json.dumps({"type": kind, "status": status, "body": body}))
"""#
}
