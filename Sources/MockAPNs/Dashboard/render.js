// Draws captured pushes (docs/capture-format.md) as iOS would show them.
//
// Every value from a record becomes text: `el` turns strings into text nodes and sets only
// class and data attributes, so a payload cannot add markup, script or a link. The page's
// Content-Security-Policy (DashboardPage.swift) refuses markup assigned as text anyway.

/// An element with `attributes` (class, title, data-*) and children: nodes, strings (as
/// text), arrays of either; null and false are skipped.
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "title" || name === "type" || name === "tabindex" || name.startsWith("data-") || name.startsWith("aria-")) node.setAttribute(name, String(value));
    else throw new Error(`el: attribute ${name} is not allowed`);
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(text(String(child)));
  }
}

/// Bidirectional and invisible format characters that would reorder or hide what is around
/// them (Trojan Source): shown as visible marks, the rest as plain text.
const controls = /[\u061c\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/// Text as a fragment, with format characters drawn as `U+202E` marks.
export function text(value) {
  const fragment = document.createDocumentFragment();
  let last = 0;
  for (const match of value.matchAll(controls)) {
    if (match.index > last) fragment.appendChild(document.createTextNode(value.slice(last, match.index)));
    const code = match[0].codePointAt(0).toString(16).toUpperCase().padStart(4, "0");
    const mark = document.createElement("span");
    mark.className = "control";
    mark.title = "an invisible format character in the payload";
    mark.textContent = `U+${code}`;
    fragment.appendChild(mark);
    last = match.index + match[0].length;
  }
  if (last < value.length) fragment.appendChild(document.createTextNode(value.slice(last)));
  return fragment;
}

/// The payload as a value, or null when it is not JSON.
export function payloadOf(record) {
  return record.payload && record.payload.parsed !== undefined ? record.payload.parsed : null;
}

/// The bundle ID a topic names: the topic without its push type's suffix.
const topicSuffixes = [".voip-ptt", ".voip", ".complication", ".pushkit.fileprovider", ".push-type.liveactivity",
  ".location-query", ".push-type.widgets", ".push-type.controls"];
export function bundleID(topic) {
  if (!topic) return "";
  const suffix = topicSuffixes.find((s) => topic.endsWith(s));
  return suffix ? topic.slice(0, -suffix.length) : topic;
}

/// A value as short text: strings as they are, everything else as JSON.
function show(value) {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/// The local time of a record's `time`, to the millisecond.
export function clock(time) {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? String(time) : date.toLocaleTimeString([], { hour12: false }) + "." + String(date.getMilliseconds()).padStart(3, "0");
}

/// One push as a list item: its rendering by type, then its outcome.
export function pushItem(record) {
  const accepted = record.status === 200;
  return el("li", { class: `push ${accepted ? "accepted" : "rejected"}`, "data-seq": record.seq, "data-apns-id": record.apns_id, tabindex: 0 },
    drawing(record), outcome(record));
}

/// The rendering iOS would show, chosen by push type.
function drawing(record) {
  const payload = payloadOf(record);
  const aps = isObject(payload) && isObject(payload.aps) ? payload.aps : null;
  const type = record.push_type || "unknown";
  if (type === "liveactivity") return liveActivity(record, payload, aps);
  if (type === "alert" && aps && aps.alert !== undefined) return banner(record, aps);
  return compact(record, payload, aps);
}

/// An alert's title, subtitle and body (localization keys shown as keys).
function alertText(alert) {
  if (typeof alert === "string") return { body: alert };
  if (!isObject(alert)) return { body: show(alert) };
  const loc = (key, args) => (alert[key] !== undefined ? `${show(alert[key])}${Array.isArray(alert[args]) ? ` (${alert[args].map(show).join(", ")})` : ""}` : undefined);
  return {
    title: alert.title !== undefined ? show(alert.title) : loc("title-loc-key", "title-loc-args"),
    subtitle: alert.subtitle !== undefined ? show(alert.subtitle) : loc("subtitle-loc-key", "subtitle-loc-args"),
    body: alert.body !== undefined ? show(alert.body) : loc("loc-key", "loc-args"),
  };
}

/// The banner: app, time, title, subtitle, body, then badge, sound, level and thread.
function banner(record, aps) {
  const { title, subtitle, body } = alertText(aps.alert);
  const level = typeof aps["interruption-level"] === "string" ? aps["interruption-level"] : null;
  const sound = aps.sound;
  const critical = level === "critical" || (isObject(sound) && sound.critical === 1);
  return el("div", { class: `banner${critical ? " critical" : level === "time-sensitive" ? " time-sensitive" : ""}` },
    head(record, aps.badge),
    title !== undefined && el("div", { class: "title" }, title),
    subtitle !== undefined && el("div", { class: "subtitle" }, subtitle),
    body !== undefined && el("div", { class: "body" }, body),
    el("div", { class: "tags" },
      sound !== undefined && el("span", { class: "tag" }, "sound ", isObject(sound) ? show(sound.name ?? sound) : show(sound)),
      critical && el("span", { class: "tag level" }, "critical"),
      !critical && level && el("span", { class: `tag${level === "time-sensitive" ? " level" : ""}` }, level),
      aps["thread-id"] !== undefined && el("span", { class: "tag" }, "thread ", show(aps["thread-id"])),
      aps.category !== undefined && el("span", { class: "tag" }, "category ", show(aps.category)),
      aps["mutable-content"] === 1 && el("span", { class: "tag" }, "mutable"),
      record.collapse_id !== undefined && el("span", { class: "tag" }, "collapse ", record.collapse_id)));
}

/// The line above a banner: app icon, topic, environment, badge and time.
function head(record, badge) {
  const topic = record.topic || "(no topic)";
  return el("div", { class: "head" },
    el("span", { class: "icon", "aria-hidden": "true" }, (bundleID(topic).split(".").pop() || "?").slice(0, 1).toUpperCase()),
    el("span", { class: "app" }, topic),
    el("span", { class: "env" }, record.env),
    badge !== undefined && el("span", { class: "badge", title: "badge" }, show(badge)),
    el("span", { class: "when" }, clock(record.time)));
}

/// A Live Activity: its event, content-state and any alert it carries.
function liveActivity(record, payload, aps) {
  const state = aps && isObject(aps["content-state"]) ? aps["content-state"] : null;
  const alert = aps && aps.alert !== undefined ? alertText(aps.alert) : null;
  return el("div", { class: "banner activity" },
    head(record),
    el("div", { class: "title" }, "Live Activity ", el("span", { class: "tag level" }, aps && aps.event !== undefined ? show(aps.event) : "no event")),
    record.channel_id !== undefined && el("div", { class: "subtitle" }, "broadcast to channel ", el("code", {}, show(record.channel_id))),
    state && el("dl", { class: "state" }, Object.entries(state).flatMap(([key, value]) => [el("dt", {}, key), el("dd", {}, show(value))])),
    aps && aps["attributes-type"] !== undefined && el("div", { class: "subtitle" }, "attributes ", show(aps["attributes-type"])),
    alert && el("div", { class: "body" }, [alert.title, alert.body].filter((part) => part !== undefined).join(" · ")),
    !aps && el("div", { class: "body muted" }, "no aps dictionary"));
}

/// Background, VoIP and the other types: what kind, and what the payload carries.
function compact(record, payload, aps) {
  const type = record.push_type || "unknown type";
  const keys = isObject(payload) ? Object.keys(payload).filter((key) => key !== "aps") : [];
  const size = record.payload ? record.payload.size : 0;
  const facts = [];
  if (aps && aps["content-available"] === 1) facts.push("content-available");
  if (aps && aps.alert !== undefined) facts.push("alert: " + [alertText(aps.alert).title, alertText(aps.alert).body].filter((p) => p !== undefined).join(" · "));
  if (aps && aps.badge !== undefined) facts.push(`badge ${show(aps.badge)}`);
  if (payload === null) facts.push(size === 0 ? "empty body" : "not JSON");
  return el("div", { class: `compact type-${type.replace(/[^a-z]/g, "")}` },
    el("div", { class: "head" },
      el("span", { class: "kind" }, type),
      el("span", { class: "app" }, record.topic || "(no topic)"),
      el("span", { class: "env" }, record.env),
      el("span", { class: "when" }, clock(record.time))),
    el("div", { class: "body" }, facts.join(" · ") || "no aps keys", ` · ${size} bytes`),
    keys.length > 0 && el("div", { class: "keys" }, "keys ", keys.join(", ")));
}

/// Accepted, or rejected with status, reason and the mock's sentence; injected answers marked.
export function outcome(record) {
  const injected = record.injected === true && el("span", { class: "tag injected", title: "a fault rule chose this answer" }, "injected");
  if (record.status === 200) {
    // The delivery badge goes in `.delivery` once the delivery log is read (dashboard.js).
    return el("div", { class: "outcome ok" }, "✓ accepted ", el("span", { class: "muted" }, record.apns_id), injected, el("span", { class: "delivery-slot" }));
  }
  const status = record.status === 0 ? "no answer" : String(record.status);
  return el("div", { class: "outcome bad" },
    el("span", { class: "status" }, `✗ ${status}`),
    " ", el("span", { class: "reason" }, record.reason || (record.status === 0 ? "stream reset or connection closed" : "")),
    injected,
    record.explanation !== undefined && el("div", { class: "explanation" }, record.explanation));
}

// MARK: Delivery (docs/delivery.md): records and devices as `GET /delivery` and
// `GET /delivery/devices` answer them.

/// A state as people say it: `stored (offline)`, `discarded (coalesced)`, `replaced on screen`.
export function deliveryLabel(state, why) {
  const words = (value) => String(value).replace(/_/g, " ");
  return why === undefined || why === null ? words(state) : `${words(state)} (${words(why)})`;
}

/// A word safe in a class name.
function token(value) {
  return String(value).toLowerCase().replace(/[^a-z_]/g, "");
}

/// A push's delivery state now, as a badge: the last event's state and why.
export function deliveryBadge(delivery) {
  const last = delivery.events && delivery.events.length ? delivery.events[delivery.events.length - 1] : {};
  return el("span", { class: `tag delivery state-${token(delivery.state)}`, "data-state": delivery.state, title: "delivery state (docs/delivery.md)" },
    deliveryLabel(delivery.state, last.why));
}

/// Each change of a push's delivery state, oldest first, with its time and the push that caused it.
export function deliveryHistory(delivery) {
  return el("ol", { class: "delivery-history" }, (delivery.events || []).map((event) => el("li", { "data-state": event.state },
    el("span", { class: "when" }, clock(event.at)), " ",
    el("span", { class: "what" }, deliveryLabel(event.state, event.why)),
    event.by !== undefined && el("span", { class: "muted" }, " by ", el("code", {}, event.by)))));
}

/// A device's connectivity as a table row, with the button that turns it the other way.
export function connectivityRow(device) {
  const online = device.connectivity === "online";
  const count = (value) => (value === undefined ? "—" : String(value));
  return el("tr", { "data-token": device.device_token, "data-connectivity": device.connectivity },
    el("td", {}, el("code", {}, device.device_token)),
    el("td", { class: `connectivity ${online ? "online" : "offline"}` }, device.connectivity),
    el("td", {}, count(device.stored_pushes)),
    el("td", {}, count(device.shown_notifications)),
    el("td", {}, el("button", { type: "button", class: "connectivity-toggle", "data-connectivity": online ? "offline" : "online" },
      online ? "Go offline" : "Go online")));
}
