// The dashboard (docs/dashboard.md): follows the capture through the control API's
// long-poll, shows details, filters, the mock's state and devices' connectivity, what became
// of each push (the delivery log, followed through its own long-poll), and exports `.apns` files.
// It talks to nothing but the origin that served it (the page's connect-src is 'self').
import { el, pushItem, outcome, payloadOf, bundleID, clock, deliveryBadge, deliveryHistory, connectivityRow } from "./render.js";

/// Pushes drawn at most, unless the user loads older ones: the tab's memory stays bounded.
const shownLimit = 200;
/// Pushes one live answer carries at most (the newest).
const liveLimit = 50;
/// The live stream asks no more often than this, however busy the mock is.
const pollInterval = 500;
/// Seconds one long-poll waits for a push.
const pollTimeout = 25;
const tokenKey = "apns-mock-control-token";
/// Devices whose delivery records one refresh reads at most: those of the newest pushes drawn.
const deliveryDevicesLimit = 10;

const $ = (id) => document.getElementById(id);

const state = {
  records: new Map(), // seq -> record
  order: [], // seqs drawn, newest first
  limit: shownLimit,
  after: 0, // the last sequence number seen
  skipped: 0, // pushes that arrived between answers and were not drawn
  selected: null,
  generation: 0, // bumped when filters change or the capture is cleared
  primed: false, // whether this generation has had its first, immediate answer
  poll: null, // the pending long-poll's AbortController
  profile: "apple",
  delivery: new Map(), // lowercased apns-id of a drawn push -> its delivery record
  deliveryOn: null, // whether the mock's delivery model is on; null until asked
  deliveryAfter: 0, // the last delivery change number seen (GET /delivery/live)
};

// MARK: The control API

class Unauthorized extends Error {}

let signedIn = null; // resolves when the user gives a token
let resolveSignIn = null;

/// Calls the control API; state-changing calls carry JSON (the API refuses them otherwise).
async function api(path, { method = "GET", body, signal, raw = false } = {}) {
  const headers = {};
  const token = sessionStorage.getItem(tokenKey);
  if (token) headers.authorization = `Bearer ${token}`;
  if (method !== "GET") headers["content-type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, cache: "no-store", credentials: "omit" });
  if (response.status === 401) {
    showLogin(token ? "That token was refused." : "");
    throw new Unauthorized();
  }
  if (raw) return response;
  const text = await response.text();
  const value = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error(value && value.error ? value.error : `${method} ${path}: ${response.status}`);
  return value;
}

function showLogin(message) {
  $("login").hidden = false;
  $("login-error").textContent = message;
  $("login-token").focus();
  if (!signedIn) signedIn = new Promise((resolve) => (resolveSignIn = resolve));
}

$("login").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem(tokenKey, $("login-token").value.trim());
  $("login-token").value = "";
  $("login").hidden = true;
  const resolve = resolveSignIn;
  signedIn = resolveSignIn = null;
  if (resolve) resolve();
  loadProfiles();
  refreshState();
  refreshReasons();
});

async function untilSignedIn() {
  while (signedIn) await signedIn;
}

// MARK: Filters

/// The filter query (`&topic=…`) the list, the live stream and the counts share.
function filterQuery() {
  const query = new URLSearchParams();
  const fields = { environment: "f-environment", topic: "f-topic", push_type: "f-push-type", outcome: "f-outcome", device_token_prefix: "f-device", apns_id: "f-apns-id" };
  for (const [name, id] of Object.entries(fields)) {
    const value = $(id).value.trim();
    if (value) query.set(name, value);
  }
  const text = query.toString();
  return text ? `&${text}` : "";
}

let filterTimer = null;
function filtersChanged() {
  clearTimeout(filterTimer);
  filterTimer = setTimeout(restart, 250);
}
for (const id of ["f-environment", "f-push-type", "f-outcome"]) $(id).addEventListener("change", filtersChanged);
for (const id of ["f-topic", "f-device", "f-apns-id"]) $(id).addEventListener("input", filtersChanged);
$("filters").addEventListener("submit", (event) => event.preventDefault());

/// Starts the list again from the newest pushes (filters changed, or the capture was cleared).
function restart() {
  state.generation += 1;
  state.records.clear();
  state.order = [];
  state.limit = shownLimit;
  state.after = 0;
  state.skipped = 0;
  state.primed = false;
  $("pushes").replaceChildren();
  $("more").hidden = true;
  if (state.poll) state.poll.abort();
  refreshReasons();
}

// MARK: The live stream

function setConnection(status, detail = "") {
  const pill = $("connection");
  pill.dataset.state = status;
  pill.textContent = { live: "live", disconnected: `disconnected${detail}`, connecting: "connecting…", "signed-out": "needs token" }[status];
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/// Follows the capture forever: one long-poll at a time, no faster than `pollInterval`,
/// backing off (up to 10 s) while the mock is away.
async function follow() {
  let backoff = 500;
  for (;;) {
    const generation = state.generation;
    const started = Date.now();
    state.poll = new AbortController();
    try {
      // The first call answers at once with what there is; later ones wait for news.
      const timeout = state.primed ? pollTimeout : 0;
      const answer = await api(`/pushes/live?after=${state.after}&limit=${liveLimit}&timeout=${timeout}${filterQuery()}`, { signal: state.poll.signal });
      if ($("connection").dataset.state === "disconnected" && state.deliveryOn === false) {
        // A restarted mock may have the delivery model on.
        state.deliveryOn = null;
        deliverySoon();
      }
      setConnection("live");
      backoff = 500;
      if (generation === state.generation) {
        take(answer);
        state.primed = true;
      }
    } catch (error) {
      if (error instanceof Unauthorized) {
        setConnection("signed-out");
        await untilSignedIn();
        continue;
      }
      if (generation !== state.generation) continue; // aborted by a filter change
      // A restarted mock numbers from 1 again: its answer's latest_seq tells (take).
      setConnection("disconnected", `, retrying in ${Math.round(backoff / 1000)} s`);
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 10_000);
      continue;
    }
    const elapsed = Date.now() - started;
    if (elapsed < pollInterval) await sleep(pollInterval - elapsed);
  }
}

/// Adds a live answer's pushes (newest first) at the top of the list.
function take(answer) {
  if (answer.latest_seq < state.after) restart(); // numbers from a restarted mock
  const fresh = answer.pushes.filter((record) => !state.records.has(record.seq));
  if (fresh.length === 0) return;
  state.after = Math.max(state.after, answer.pushes[0].seq);
  state.skipped += Math.max(0, answer.matched - answer.pushes.length);
  const items = fresh.map((record) => {
    state.records.set(record.seq, record);
    return drawn(record);
  });
  $("pushes").prepend(...items);
  state.order = fresh.map((record) => record.seq).concat(state.order);
  trim();
  showSkipped();
  refreshReasonsSoon();
  // Their records: a push's own changes may have been streamed before it was drawn.
  const accepted = fresh.filter((record) => record.status === 200).map((record) => record.device_token);
  if (state.deliveryOn && accepted.length > 0) refreshDelivery(accepted).catch(() => null);
}

/// A push's list item, with its delivery badge when the log has been read for it.
function drawn(record) {
  const item = pushItem(record);
  const delivery = record.apns_id && state.delivery.get(record.apns_id.toLowerCase());
  if (delivery) item.querySelector(".delivery-slot").replaceChildren(deliveryBadge(delivery));
  return item;
}

function trim() {
  const list = $("pushes");
  while (state.order.length > state.limit) {
    const seq = state.order.pop();
    state.records.delete(seq);
    list.lastElementChild.remove();
  }
}

function showSkipped() {
  const more = $("more");
  more.hidden = state.skipped === 0;
  more.textContent = `${state.skipped.toLocaleString()} more pushes arrived between updates and are not drawn; the capture holds them (filters, Load older).`;
}

/// Pages older pushes from `GET /pushes`, before the oldest drawn.
$("older").addEventListener("click", async () => {
  const oldest = state.records.get(state.order[state.order.length - 1]);
  const until = oldest ? `&until=${encodeURIComponent(oldest.time)}` : "";
  const generation = state.generation;
  const answer = await api(`/pushes?limit=100${until}${filterQuery()}`).catch(report);
  if (!answer || generation !== state.generation) return;
  const older = answer.pushes.filter((record) => !state.records.has(record.seq)).reverse(); // newest first
  state.limit = state.order.length + older.length;
  for (const record of older) {
    state.records.set(record.seq, record);
    state.order.push(record.seq);
    $("pushes").append(drawn(record));
  }
  state.skipped = Math.max(0, state.skipped - older.length);
  showSkipped();
  $("older").textContent = older.length === 0 ? "No older pushes" : "Load older";
});

// MARK: Counts per reason

let reasonsTimer = null;
function refreshReasonsSoon() {
  if (!reasonsTimer) reasonsTimer = setTimeout(() => { reasonsTimer = null; refreshReasons(); }, 2000);
}

async function refreshReasons() {
  const counts = await api(`/pushes/reasons?${filterQuery().slice(1)}`).catch(() => null);
  const box = $("reasons");
  if (!counts) return box.replaceChildren();
  $("totals").textContent = `${counts.total} in the capture · ${counts.accepted} accepted · ${counts.rejected} rejected · ${counts.injected} injected`;
  box.replaceChildren(...counts.reasons.map((entry) => el("span", { class: "chip", title: `status ${entry.status}` }, `${entry.reason} `, el("b", {}, String(entry.count)))));
}

$("clear-capture").addEventListener("click", async () => {
  if (!confirm("Clear every push the mock holds in memory? The capture file is not touched.")) return;
  await api("/pushes", { method: "DELETE" }).catch(report);
  restart();
});

// MARK: Details

$("pushes").addEventListener("click", (event) => {
  const item = event.target.closest("li.push");
  if (item) select(Number(item.dataset.seq));
});
$("pushes").addEventListener("keydown", (event) => {
  const item = event.target.closest("li.push");
  if (item && (event.key === "Enter" || event.key === " ")) { event.preventDefault(); select(Number(item.dataset.seq)); }
});

function select(seq) {
  const record = state.records.get(seq);
  if (!record) return;
  state.selected = seq;
  for (const item of document.querySelectorAll("li.push.selected")) item.classList.remove("selected");
  const item = document.querySelector(`li.push[data-seq="${seq}"]`);
  if (item) item.classList.add("selected");
  $("details").replaceChildren(...details(record));
  loadFindings(record);
}

function section(title, ...children) {
  return el("section", {}, el("h3", {}, title), ...children);
}

function table(rows) {
  return el("table", { class: "pairs" }, el("tbody", {}, rows.map(([name, value]) => el("tr", {}, el("th", {}, name), el("td", {}, value)))));
}

function pretty(value) {
  return el("pre", {}, JSON.stringify(value, null, 2));
}

/// "3 min 20 s".
function duration(ms) {
  const seconds = Math.round(Math.abs(ms) / 1000);
  const text = seconds < 60 ? `${seconds} s` : seconds < 3600 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return ms < 0 ? `${text} in the future` : text;
}

/// The name the mock gives the file (`SimulatorPushFile.fileName`): the apns-id when it is
/// UUID-shaped, else the push's seq.
function exportFileName(record) {
  return /^[0-9A-Fa-f-]{1,64}$/.test(record.apns_id || "") ? `${record.apns_id}.apns` : `push-${record.seq}.apns`;
}

function details(record) {
  const payload = payloadOf(record);
  const file = exportFileName(record);
  const bundle = bundleID(record.topic);
  const parts = [
    el("h2", {}, `Push ${record.seq}`, el("span", { class: "muted" }, ` ${record.env} · ${clock(record.time)}`)),
    outcome(record),
    section("Export",
      el("p", {}, el("button", { type: "button", class: "export", "data-seq": record.seq }, `Download ${file}`)),
      el("pre", { class: "command" }, `xcrun simctl push booted ${bundle || "<bundle id>"} ${file}`),
      el("p", { class: "export-status muted" })),
    section("Request", table([["method", record.method], ["path", record.path], ["apns-id", record.apns_id],
      ...(record.unique_id ? [["apns-unique-id", record.unique_id]] : []),
      ...record.headers.map(([name, value]) => [name, value])])),
    section("Payload", payload !== null ? pretty(payload)
      : record.payload.raw !== undefined ? el("pre", {}, record.payload.raw)
      : el("p", { class: "muted" }, record.payload.base64 !== undefined ? `${record.payload.size} bytes, not UTF-8 (base64 in the capture)` : "empty body")),
    section("Provider token", tokenDetails(record)),
    section("Connection", table([["connection", String(record.conn)], ["environment", record.env],
      ["afterwards", record.conn_action || "stayed open"], ["team", record.team_id || "—"], ["key", record.key_id || "—"],
      ...(record.faults || []).map((fault) => ["fault rule", fault])])),
    section("Lint warnings", record.lint && record.lint.length
      ? el("ul", {}, record.lint.map((lint) => el("li", {}, el("code", {}, lint.code), " ", lint.message, lint.path ? el("span", { class: "muted" }, ` (${lint.path})`) : null)))
      : el("p", { class: "muted" }, "none")),
    section("Findings",
      el("select", { class: "profile", title: "push-inspect profile" }, profiles.map((name) => {
        const option = el("option", {}, name);
        option.selected = name === state.profile;
        return option;
      })),
      el("div", { class: "findings" }, el("p", { class: "muted" }, "loading…"))),
  ];
  if (record.status === 200) {
    const delivery = state.delivery.get((record.apns_id || "").toLowerCase());
    parts.splice(2, 0, section("Delivery", el("div", { class: "delivery-details" }, deliveryDetails(delivery))));
  }
  if (record.device_token) {
    parts.push(section("Device", el("p", {}, el("code", {}, record.device_token)),
      el("button", { type: "button", class: "unregister", "data-token": record.device_token, "data-bundle": bundle, "data-env": record.env }, "Mark this device unregistered")));
  }
  return parts;
}

/// The Delivery section's content: the state and its history, or why there is none.
function deliveryDetails(delivery) {
  if (delivery) return [el("p", {}, deliveryBadge(delivery)), deliveryHistory(delivery)];
  if (state.deliveryOn === false) return el("p", { class: "muted" }, "The delivery model is off (apns-mock --delivery).");
  return el("p", { class: "muted" }, "not in the delivery log yet");
}

function tokenDetails(record) {
  const token = record.token;
  if (!token) return el("p", { class: "muted" }, "no authorization header (certificate connection, or none sent)");
  const rows = [];
  if (token.header) rows.push(["header", pretty(token.header)]);
  if (token.claims) rows.push(["claims", pretty(token.claims)]);
  if (token.claims && typeof token.claims.iat === "number") {
    const issued = token.claims.iat * 1000;
    rows.push(["issued", `${new Date(issued).toISOString()}: ${duration(new Date(record.time).getTime() - issued)} before the push, ${duration(Date.now() - issued)} ago`]);
  }
  if (token.fingerprint) rows.push(["fingerprint", token.fingerprint]);
  return rows.length ? table(rows) : el("p", { class: "muted" }, "an authorization header nothing could be decoded from");
}

let profiles = ["apple", "privacy", "hermes"];
async function loadProfiles() {
  const answer = await api("/profiles").catch(() => null);
  if (answer && Array.isArray(answer.profiles)) profiles = answer.profiles.map((profile) => profile.name);
}

$("details").addEventListener("change", (event) => {
  if (!event.target.matches("select.profile")) return;
  state.profile = event.target.value;
  const record = state.records.get(state.selected);
  if (record) loadFindings(record);
});

async function loadFindings(record) {
  const box = $("details").querySelector(".findings");
  try {
    const answer = await api(`/pushes/${record.seq}/findings?profile=${encodeURIComponent(state.profile)}`);
    if (state.selected !== record.seq) return;
    box.replaceChildren(answer.findings.length === 0 ? el("p", { class: "muted" }, "no findings")
      : el("ul", {}, answer.findings.map((finding) => el("li", { class: "finding" }, el("code", {}, finding.rule), finding.path ? [" at ", el("code", {}, finding.path)] : null, " ", finding.message))));
  } catch (error) {
    if (state.selected === record.seq) box.replaceChildren(el("p", { class: "muted" }, String(error.message || error)));
  }
}

/// Downloads the push as an `.apns` file for `xcrun simctl push`, as the mock builds it.
$("details").addEventListener("click", async (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  if (button.classList.contains("export")) {
    const seq = Number(button.dataset.seq);
    const status = $("details").querySelector(".export-status");
    try {
      const response = await api(`/pushes/${seq}/simulator`, { raw: true });
      if (!response.ok) throw new Error(`the mock answered ${response.status}`);
      const blob = await response.blob();
      const file = JSON.parse(await blob.text());
      const link = el("a", {});
      link.href = URL.createObjectURL(blob);
      const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") || "")?.[1] || `push-${seq}.apns`;
      link.download = name;
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
      const command = $("details").querySelector(".command");
      command.textContent = `xcrun simctl push booted ${file["Simulator Target Bundle"]} ${name}`;
      status.textContent = `saved ${name}`;
    } catch (error) {
      if (!(error instanceof Unauthorized)) status.textContent = `export failed: ${error.message}`;
    }
  } else if (button.classList.contains("unregister")) {
    await setDeviceState(button.dataset.token, { bundle_id: button.dataset.bundle, environment: button.dataset.env }, "unregistered").catch(report);
  }
});

// MARK: The mock's state

function report(error) {
  if (!(error instanceof Unauthorized)) alert(String(error.message || error));
  return null;
}

/// Sets one device's state: GET /devices, change or add it, PUT /devices.
async function setDeviceState(token, defaults, deviceState) {
  const devices = await api("/devices");
  let device = devices.find((entry) => entry.token.toLowerCase() === token.toLowerCase());
  if (!device) devices.push(device = { token, ...defaults });
  device.state = deviceState;
  if (deviceState === "unregistered") device.unregistered_since = new Date().toISOString();
  else delete device.unregistered_since;
  await api("/devices", { method: "PUT", body: devices });
  await refreshState();
}

async function refreshState() {
  const [registry, faults] = await Promise.all([api("/registry"), api("/faults")]).catch((error) => (report(error), []));
  if (!registry) return;
  $("apps").replaceChildren(...registry.apps.map((app) => el("li", {}, el("code", {}, app))));
  $("unknown-devices").textContent = registry.accept_unknown_devices ? "Unlisted device tokens are accepted as active devices." : "Unlisted device tokens are refused (BadDeviceToken).";
  $("keys").replaceChildren(...registry.keys.map((key) => el("li", {}, el("code", {}, key.key_id), ` team ${key.team_id} · ${key.environment || "both"}`, key.topics ? ` · ${key.topics.join(", ")}` : "")));
  $("devices").tBodies[0].replaceChildren(...registry.devices.map((device) => el("tr", { "data-token": device.token },
    el("td", {}, el("code", {}, device.token)), el("td", {}, device.bundle_id), el("td", {}, device.environment),
    el("td", {}, device.state || "active", device.unregistered_since ? el("span", { class: "muted" }, ` since ${device.unregistered_since}`) : null),
    el("td", {}, el("button", { type: "button", "data-state": (device.state || "active") === "active" ? "unregistered" : "active" },
      (device.state || "active") === "active" ? "Mark unregistered" : "Mark active")))));
  $("faults").replaceChildren(...faults.map((rule) => el("li", { "data-id": rule.id },
    el("code", {}, rule.id), ` fired ${rule.fired}${rule.remaining !== undefined ? `, ${rule.remaining} left` : ""} `,
    el("button", { type: "button", class: "danger" }, "Remove"),
    el("pre", {}, JSON.stringify(rule)))));
}

$("devices").addEventListener("click", async (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  await setDeviceState(button.closest("tr").dataset.token, {}, button.dataset.state).catch(report);
});

$("faults").addEventListener("click", async (event) => {
  const button = event.target.closest("button");
  if (!button) return;
  await api(`/faults/${encodeURIComponent(button.closest("li").dataset.id)}`, { method: "DELETE" }).catch(report);
  await refreshState();
});

$("fault-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("fault-error").textContent = "";
  try {
    await api("/faults", { method: "POST", body: JSON.parse($("fault-json").value) });
    await refreshState();
  } catch (error) {
    if (!(error instanceof Unauthorized)) $("fault-error").textContent = String(error.message || error);
  }
});

$("state-refresh").addEventListener("click", () => refreshState());

// MARK: Delivery

let wakeDelivery = null;
/// Asks a mock whose delivery model was off again (it has restarted).
function deliverySoon() {
  if (wakeDelivery) wakeDelivery();
}

/// Follows the delivery model's changes (`GET /delivery/live`): one long-poll at a time, no
/// faster than `pollInterval`; each answer's devices are read again, all followed ones after
/// the first answer, a restart, or an answer that left changes out. A mock without the model
/// is asked again only once it has restarted (follow).
async function followDelivery() {
  let primed = false;
  let backoff = 500;
  for (;;) {
    if (state.deliveryOn === false) {
      await new Promise((resolve) => (wakeDelivery = resolve));
      wakeDelivery = null;
      primed = false;
      continue;
    }
    const started = Date.now();
    try {
      const timeout = primed ? pollTimeout : 0;
      const response = await api(`/delivery/live?after=${state.deliveryAfter}&limit=${liveLimit}&timeout=${timeout}`, { raw: true });
      if (response.status === 409) {
        deliveryOff(await response.json().catch(() => null));
        continue;
      }
      if (!response.ok) throw new Error(`GET /delivery/live: ${response.status}`);
      const answer = await response.json();
      // A restarted mock numbers from 1 again.
      const everything = !primed || answer.latest_seq < state.deliveryAfter || answer.matched > answer.count;
      state.deliveryAfter = answer.latest_seq;
      primed = true;
      backoff = 500;
      if (everything || answer.count > 0) await refreshDelivery(everything ? null : answer.changes.map((change) => change.device_token));
    } catch (error) {
      if (error instanceof Unauthorized) {
        await untilSignedIn();
        continue;
      }
      // The mock is away (follow shows it): ask again, backing off, and start over.
      primed = false;
      await sleep(backoff);
      backoff = Math.min(backoff * 2, 10_000);
      continue;
    }
    const elapsed = Date.now() - started;
    if (elapsed < pollInterval) await sleep(pollInterval - elapsed);
  }
}

function deliveryOff(answer) {
  state.deliveryOn = false;
  $("delivery-off").textContent = answer && answer.error ? answer.error : "The delivery model is off.";
  $("delivery-off").hidden = false;
  $("connectivity").hidden = true;
}

/// Reads devices' connectivity, and the delivery records of the followed devices among
/// `tokens` (all followed devices when null).
async function refreshDelivery(tokens) {
  const response = await api("/delivery/devices", { raw: true });
  if (response.status === 409) return deliveryOff(await response.json().catch(() => null));
  if (!response.ok) return;
  const { devices } = await response.json();
  state.deliveryOn = true;
  $("delivery-off").hidden = true;
  $("connectivity").hidden = false;
  drawConnectivity(devices);
  const wanted = tokens && new Set(tokens.filter(Boolean).map((token) => token.toLowerCase()));
  const followed = followedDevices().filter((token) => !wanted || wanted.has(token));
  const answers = await Promise.all(followed.map((token) => api(`/delivery?device_token=${token}`).catch(() => null)));
  // Only the drawn pushes' records are kept: the tab's memory stays bounded as the list's.
  const drawnIDs = new Set(Array.from(state.records.values(), (record) => (record.apns_id || "").toLowerCase()));
  for (const key of state.delivery.keys()) if (!drawnIDs.has(key)) state.delivery.delete(key);
  for (const answer of answers) {
    for (const record of answer ? answer.records : []) if (drawnIDs.has(record.apns_id.toLowerCase())) noteDelivery(record);
  }
}

/// The devices the model knows, and those of drawn pushes it does not (online, its default).
/// A row that did not change stays the same element, so a click on its button is not lost.
function drawConnectivity(devices) {
  const known = new Set(devices.map((device) => device.device_token));
  const wanted = devices.slice();
  for (const token of followedDevices()) if (!known.has(token)) wanted.push({ device_token: token, connectivity: "online" });
  const body = $("connectivity").tBodies[0];
  const drawnRows = new Map(Array.from(body.rows, (row) => [row.dataset.token, row]));
  const rows = wanted.map((device) => {
    const key = JSON.stringify(device);
    const drawnRow = drawnRows.get(device.device_token);
    if (drawnRow && drawnRow.dataset.key === key) return drawnRow;
    const row = connectivityRow(device);
    row.dataset.key = key;
    return row;
  });
  if (rows.length !== body.rows.length || rows.some((row, index) => row !== body.rows[index])) body.replaceChildren(...rows);
}

/// The devices of the newest accepted pushes drawn, the selected push's first.
function followedDevices() {
  const tokens = new Set();
  const selected = state.records.get(state.selected);
  if (selected && selected.status === 200 && selected.device_token) tokens.add(selected.device_token.toLowerCase());
  for (const seq of state.order) {
    if (tokens.size >= deliveryDevicesLimit) break;
    const record = state.records.get(seq);
    if (record && record.status === 200 && record.device_token) tokens.add(record.device_token.toLowerCase());
  }
  return [...tokens];
}

/// Keeps a record and redraws its push's badge (and details, if selected) when it changed.
function noteDelivery(delivery) {
  const key = delivery.apns_id.toLowerCase();
  const known = state.delivery.get(key);
  if (known && known.events.length === delivery.events.length && known.state === delivery.state) return;
  state.delivery.set(key, delivery);
  for (const item of document.querySelectorAll("li.push")) {
    if ((item.dataset.apnsId || "").toLowerCase() !== key) continue;
    const slot = item.querySelector(".delivery-slot");
    if (slot) slot.replaceChildren(deliveryBadge(delivery));
  }
  const selected = state.records.get(state.selected);
  const box = $("details").querySelector(".delivery-details");
  if (box && selected && (selected.apns_id || "").toLowerCase() === key) box.replaceChildren(...[deliveryDetails(delivery)].flat());
}

/// Sets a device online or offline from now (`PUT /delivery/devices/{token}`).
$("connectivity").addEventListener("click", async (event) => {
  const button = event.target.closest("button.connectivity-toggle");
  if (!button) return;
  const token = button.closest("tr").dataset.token;
  // The change comes back through the live stream (followDelivery).
  await api(`/delivery/devices/${encodeURIComponent(token)}`, { method: "PUT", body: { connectivity: button.dataset.connectivity } }).catch(report);
});

// MARK: Start

setConnection("connecting");
loadProfiles();
refreshState();
refreshReasons();
follow();
followDelivery();
