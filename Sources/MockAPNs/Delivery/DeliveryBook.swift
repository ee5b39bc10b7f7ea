import APNsCapture
import APNsCore
import Foundation
import StrictJSON

/// An accepted push, as the delivery model needs it.
struct DeliveryInput {
    var apnsID: String
    var uniqueID: String?
    var deviceToken: DeviceToken
    var topic: String
    var pushType: APNsPushType
    var priority: APNsPriority
    var expiration: Int64?
    var collapseID: String?
    var payload: [UInt8]
}

/// The delivery model's state and rules (docs/delivery.md), a plain value that
/// ``DeliveryModel`` keeps under its lock. Every change is made at a time the caller
/// gives; ``advance(to:)`` first plays every change due before it, in time order, so that
/// a clock moved by hours gives the same log as one that ticked through them.
///
/// Memory: one held push per topic per device, the notification centre's limit per device,
/// and the log's records, at most ``logCapacity`` plus the held ones.
struct DeliveryBook {
    let settings: DeliverySettings
    /// Records kept besides held ones: the capture ring's size.
    let logCapacity: Int

    private(set) var devices: [DeviceToken: DeviceSlot] = [:]
    private(set) var records: [UInt64: LogEntry] = [:]
    /// Serials of the newest records, in a circle from `orderHead`, at most `logCapacity`.
    private var order: [UInt64] = []
    private var orderHead = 0
    private var nextSerial: UInt64 = 1
    private var timers = DeliveryTimers()
    /// Pushes held for devices, over all devices.
    private(set) var heldCount = 0
    /// The changes made since the caller last took them (record serial, event index), for
    /// the capture file and waits.
    var changes: [(serial: UInt64, event: Int)] = []

    /// The capture lines of the changes since the caller last took them; nil when changes
    /// are not kept as lines (no capture file).
    var lines: [CaptureDeliveryEvent]?
    /// Every change numbered, the latest kept for followers (`/delivery/live`).
    private(set) var feed: DeliveryFeed

    init(settings: DeliverySettings, logCapacity: Int, keepsLines: Bool = false) {
        self.settings = settings
        self.logCapacity = max(0, logCapacity)
        lines = keepsLines ? [] : nil
        feed = DeliveryFeed(capacity: max(self.logCapacity, 64))
    }

    /// One device's connectivity, held pushes, screen and budget.
    struct DeviceSlot {
        var connectivity = DeviceConnectivity.online
        /// Offline windows, absolute, in no particular order.
        var windows: [(start: Date, end: Date)] = []
        /// At most one push per topic.
        var held: [String: HeldPush] = [:]
        /// Shown notifications, oldest first; the newest `notificationCentreLimit` are on
        /// screen. Up to twice that are kept, so that trimming is one move per so many pushes.
        var shown: [ShownNotification] = []
        /// The payload of the last delivered push per topic that may carry a badge: a device
        /// has few topics, so a list compared by topic costs less per push than hashing one.
        var badgeSources: [(topic: String, payload: [UInt8])] = []
        /// Times of background deliveries still inside the budget's window.
        var backgroundDeliveries: [Date] = []
        /// When the device's timer fires next; a timer entry for another time is stale.
        var scheduled: Date?
        /// Whether the feed last numbered the device online.
        var numberedOnline = true

        func isOnline(at time: Date) -> Bool {
            connectivity == .online && !windows.contains { $0.start <= time && time < $0.end }
        }

        /// The next time after `time` something about this device changes by itself.
        func nextChange(after time: Date) -> Date? {
            var next: Date?
            func consider(_ candidate: Date) {
                if candidate > time, next.map({ candidate < $0 }) ?? true { next = candidate }
            }
            for window in windows {
                consider(window.start)
                consider(window.end)
            }
            for push in held.values {
                consider(push.expiresAt)
                if let due = push.dueAt { consider(due) }
            }
            return next
        }
    }

    /// A push APNs holds for a device.
    struct HeldPush {
        var serial: UInt64
        var reason: DeliveryReason
        var expiresAt: Date
        /// For a push held for power: when it is delivered if the device is online.
        var dueAt: Date?
        var push: DeliveryInput
    }

    /// A record as the log keeps it: its first event inline, so that a push delivered at
    /// once allocates no list of events.
    struct LogEntry {
        /// The push's facts; its `events` stay empty here.
        var record: DeliveryRecord
        var first: DeliveryEvent?
        var later: [DeliveryEvent] = []

        var lastState: DeliveryState? { later.last?.state ?? first?.state }

        /// The public record, with its events.
        var full: DeliveryRecord {
            var full = record
            full.events = (first.map { [$0] } ?? []) + later
            return full
        }

        /// Appends `event`, and its capture line to `lines` if there are any; returns its index
        /// in ``full``'s events.
        mutating func add(_ event: DeliveryEvent, lines: inout [CaptureDeliveryEvent]?) -> Int {
            lines?.append(line(event))
            if first == nil {
                first = event
                return 0
            }
            later.append(event)
            return later.count
        }

        /// Event `index` of ``full``'s events as a numbered change (its number left 0).
        func change(_ index: Int) -> DeliveryChange? {
            let event = index == 0 ? first : later.indices.contains(index - 1) ? later[index - 1] : nil
            return event.map {
                DeliveryChange(sequence: 0, deviceToken: record.deviceToken,
                               what: .push(apnsID: record.apnsID, uniqueID: record.uniqueID, topic: record.topic, event: $0))
            }
        }

        func line(_ event: DeliveryEvent) -> CaptureDeliveryEvent {
            CaptureDeliveryEvent(
                timeMicroseconds: Int64((event.at.timeIntervalSince1970 * 1_000_000).rounded()), apnsID: record.apnsID,
                uniqueID: record.uniqueID, deviceToken: record.deviceToken, topic: record.topic, state: event.state.rawValue,
                why: event.why?.rawValue, by: event.by)
        }
    }

    // MARK: Connectivity

    mutating func setConnectivity(_ connectivity: DeviceConnectivity, for token: DeviceToken, at time: Date) {
        advance(to: time)
        devices[token, default: DeviceSlot()].connectivity = connectivity
        settle(token, at: time)
    }

    /// Applies `plan` from `time`: its state, and its windows replacing earlier ones.
    mutating func apply(_ plan: DeviceConnectivityPlan, to token: DeviceToken, at time: Date) {
        advance(to: time)
        devices[token, default: DeviceSlot()].connectivity = plan.connectivity
        devices[token]?.windows = plan.offlineWindows.map {
            (time.addingTimeInterval($0.start), time.addingTimeInterval($0.start + $0.duration))
        }
        settle(token, at: time)
    }

    func connectivity(of token: DeviceToken, at time: Date) -> DeviceConnectivity {
        (devices[token]?.isOnline(at: time) ?? true) ? .online : .offline
    }

    // MARK: Time

    /// Plays every change due at or before `time`, each at its own time.
    mutating func advance(to time: Date) {
        guard let earliest = timers.earliest, earliest <= time else { return }
        while let entry = timers.popDue(at: time) {
            guard devices[entry.token]?.scheduled == entry.time else { continue }
            devices[entry.token]?.scheduled = nil
            settle(entry.token, at: entry.time)
        }
        compactTimers()
    }

    /// Delivers, expires or re-files the device's held pushes as of `time`, then books its
    /// next change.
    private mutating func settle(_ token: DeviceToken, at time: Date) {
        // Taken out while it changes, so that the log can change beside it.
        guard var slot = devices.removeValue(forKey: token) else { return }
        if slot.isOnline(at: time) != slot.numberedOnline {
            slot.numberedOnline.toggle()
            feed.number(DeliveryChange(sequence: 0, deviceToken: token,
                                       what: .connectivity(slot.numberedOnline ? .online : .offline, at: time)))
        }
        if !slot.held.isEmpty {
            let online = slot.isOnline(at: time)
            for (topic, push) in slot.held.sorted(by: { $0.value.serial < $1.value.serial }) {
                if push.expiresAt <= time {
                    slot.held[topic] = nil
                    heldCount -= 1
                    change(push.serial, DeliveryEvent(state: .discarded, why: .expired, at: push.expiresAt))
                } else if online, push.dueAt.map({ $0 <= time }) ?? true {
                    slot.held[topic] = nil
                    heldCount -= 1
                    deliver(push.serial, push.push, to: &slot, at: time)
                } else if !online, push.reason == .power, push.dueAt.map({ $0 <= time }) ?? false {
                    slot.held[topic]?.reason = .offline
                    slot.held[topic]?.dueAt = nil
                    change(push.serial, DeliveryEvent(state: .stored, why: .offline, at: time))
                }
            }
        }
        slot.windows.removeAll { $0.end <= time }
        schedule(token, &slot, after: time)
        devices[token] = slot
    }

    /// Books the device's next change, unless its timer already fires by then: a timer that
    /// fires early finds nothing due and books the next one, so pushes that only move an
    /// expiry later (each coalesced push) add no entry.
    private mutating func schedule(_ token: DeviceToken, _ slot: inout DeviceSlot, after time: Date) {
        guard let next = slot.nextChange(after: time) else { return }
        if let scheduled = slot.scheduled, scheduled > time, scheduled <= next { return }
        slot.scheduled = next
        timers.insert(DeliveryTimers.Entry(time: next, token: token))
    }

    /// Drops stale timer entries once they outnumber the live ones. Called only while every
    /// device is in `devices` (not while one is taken out to be changed).
    private mutating func compactTimers() {
        guard timers.count > 2 * devices.count + 64 else { return }
        let devices = devices
        timers.compact { devices[$0.token]?.scheduled == $0.time }
    }

    // MARK: Pushes

    /// Files an accepted push: delivered, held or discarded, as Apple's rules say.
    mutating func accept(_ push: borrowing DeliveryInput, at time: Date) {
        advance(to: time)
        let serial = addRecord(push, at: time)
        // The slot is swapped out of its place and back, so the token is hashed once: nothing
        // below adds or removes a device, which keeps `index` valid.
        let index = devices.index(forKey: push.deviceToken)
        var slot = DeviceSlot()
        if let index { swap(&slot, &devices.values[index]) }
        let expired = push.expiration.map { Date(timeIntervalSince1970: TimeInterval($0)) <= time } ?? false
        let expiresAt = push.expiration.map { Date(timeIntervalSince1970: TimeInterval($0)) }
            ?? time.addingTimeInterval(settings.maximumStorage)
        if slot.isOnline(at: time) {
            if settings.powerDelay > 0, push.priority != .immediately, !expired {
                hold(HeldPush(serial: serial, reason: .power, expiresAt: expiresAt, dueAt: time.addingTimeInterval(settings.powerDelay),
                              push: copy push), in: &slot, at: time)
            } else {
                deliver(serial, push, to: &slot, at: time)
            }
        } else if expired {
            // `apns-expiration` 0 (or past): one attempt, which found the device offline.
            change(serial, DeliveryEvent(state: .discarded, why: .expired, at: time))
        } else {
            hold(HeldPush(serial: serial, reason: .offline, expiresAt: expiresAt, dueAt: nil, push: copy push), in: &slot, at: time)
        }
        if !slot.held.isEmpty { schedule(push.deviceToken, &slot, after: time) }
        if let index {
            swap(&slot, &devices.values[index])
        } else {
            devices[push.deviceToken] = slot
        }
        compactTimers()
    }

    /// Logs a push answered 410: the device can get nothing.
    mutating func reject(_ push: borrowing DeliveryInput, because reason: DeliveryReason, at time: Date) {
        advance(to: time)
        change(addRecord(push, at: time), DeliveryEvent(state: .rejected, why: reason, at: time))
    }

    /// Takes back the newest push filed with this `apns-id` for this device, which the mock
    /// answered 500 after filing it (its capture line could not be written): it leaves the
    /// device's storage, screen, background budget and badge, and its record's history
    /// becomes one `rejected` (`internal_server_error`) event, so the log says what the
    /// client was told. Pushes it had already displaced (coalesced, replaced on screen) stay
    /// as they are. A withdrawn record is not taken again.
    mutating func withdraw(apnsID: String, deviceToken: DeviceToken, at time: Date) {
        advance(to: time)
        func matches(_ entry: LogEntry) -> Bool {
            entry.record.apnsID == apnsID && entry.record.deviceToken == deviceToken && entry.first?.why != .internalServerError
        }
        // Newest first through the window: the push was filed moments ago. Else a held push
        // that left it.
        var serial: UInt64?
        var position = order.count
        while serial == nil, position > 0 {
            position -= 1
            let candidate = order[(orderHead + position) % order.count]
            if let entry = records[candidate], matches(entry) { serial = candidate }
        }
        serial = serial ?? records.values.filter(matches).map(\.record.serial).max()
        guard let serial, let entry = records[serial] else { return }

        if var slot = devices.removeValue(forKey: deviceToken) {
            let topic = entry.record.topic
            if slot.held[topic]?.serial == serial {
                slot.held[topic] = nil
                heldCount -= 1
            }
            if let index = slot.shown.lastIndex(where: { $0.serial == serial }) {
                let shown = slot.shown.remove(at: index)
                if let badge = slot.badgeSources.firstIndex(where: { $0.topic == topic }), slot.badgeSources[badge].payload == shown.payload {
                    // The badge goes back to the newest shown push of the topic that may set one.
                    if let earlier = slot.shown.last(where: { $0.topic == topic && Self.mayCarryBadge($0.payload) }) {
                        slot.badgeSources[badge].payload = earlier.payload
                    } else {
                        slot.badgeSources.remove(at: badge)
                    }
                }
            }
            let delivered = entry.full.events.last { $0.state == .delivered }?.at
            if entry.record.pushType == .background, let delivered, let index = slot.backgroundDeliveries.firstIndex(of: delivered) {
                slot.backgroundDeliveries.remove(at: index)
            }
            devices[deviceToken] = slot
        }
        // The changes followers were told of stay as they were: the feed names them by their
        // place among the record's events, which start again here.
        feed.keep(serial: serial, among: .max) { entry.change($1) }
        records[serial]?.first = nil
        records[serial]?.later = []
        change(serial, DeliveryEvent(state: .rejected, why: .internalServerError, at: time))
    }

    /// Stores `push` as its topic's one held push, discarding the one it replaces.
    private mutating func hold(_ push: HeldPush, in slot: inout DeviceSlot, at time: Date) {
        if let previous = slot.held[push.push.topic] {
            change(previous.serial, DeliveryEvent(state: .discarded, why: .coalesced, by: push.push.apnsID, at: time))
        } else {
            heldCount += 1
        }
        slot.held[push.push.topic] = push
        change(push.serial, DeliveryEvent(state: .stored, why: push.reason, at: time))
    }

    /// Hands a push to the device: into the background budget, or onto the screen.
    private mutating func deliver(_ serial: UInt64, _ record: borrowing DeliveryInput, to slot: inout DeviceSlot, at time: Date) {
        if record.pushType == .background, let budget = settings.backgroundBudget {
            slot.backgroundDeliveries.removeAll { $0 <= time.addingTimeInterval(-budget.window) }
            guard slot.backgroundDeliveries.count < budget.count else {
                change(serial, DeliveryEvent(state: .discarded, why: .budget, at: time))
                return
            }
            slot.backgroundDeliveries.append(time)
        }
        change(serial, DeliveryEvent(state: .delivered, at: time))
        guard record.pushType == .alert else { return }
        if let collapseID = record.collapseID,
           let index = slot.shown.lastIndex(where: { $0.collapseID == collapseID && $0.topic == record.topic }) {
            let replaced = slot.shown.remove(at: index)
            change(replaced.serial, DeliveryEvent(state: .replacedOnScreen, by: record.apnsID, at: time))
        }
        if Self.mayCarryBadge(record.payload) {
            if let index = slot.badgeSources.firstIndex(where: { $0.topic == record.topic }) {
                slot.badgeSources[index].payload = record.payload
            } else {
                slot.badgeSources.append((record.topic, record.payload))
            }
        }
        slot.shown.append(ShownNotification(serial: serial, apnsID: record.apnsID, uniqueID: record.uniqueID, topic: record.topic,
                                            collapseID: record.collapseID, deliveredAt: time, payload: record.payload))
        if slot.shown.count >= 2 * settings.notificationCentreLimit {
            slot.shown.removeFirst(slot.shown.count - settings.notificationCentreLimit)
        }
    }

    /// Whether the payload's bytes hold `"badge"` at all: only those are read for a badge,
    /// when the notification centre is asked for, off the push path.
    static func mayCarryBadge(_ payload: [UInt8]) -> Bool {
        payload.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress, bytes.count >= 7 else { return false }
            // The `b` of `"badge"` can stand from the second byte to the sixth from the end.
            let end = base + bytes.count - 5
            var at = base + 1
            // memchr skips to each `b`, far rarer in a payload than the quotes around every
            // key and string; only there are the bytes around it compared.
            while at < end, let letter = memchr(at, 0x62, end - at) {
                let found = letter.assumingMemoryBound(to: UInt8.self)
                if found[-1] == 0x22, found[1] == 0x61, found[2] == 0x64, found[3] == 0x67, found[4] == 0x65, found[5] == 0x22 {
                    return true
                }
                at = UnsafePointer(found + 1)
            }
            return false
        }
    }

    // MARK: The log

    private mutating func addRecord(_ push: borrowing DeliveryInput, at time: Date) -> UInt64 {
        let serial = nextSerial
        nextSerial += 1
        records[serial] = LogEntry(record: DeliveryRecord(
            serial: serial, apnsID: push.apnsID, uniqueID: push.uniqueID, deviceToken: push.deviceToken, topic: push.topic,
            pushType: push.pushType, priority: push.priority, expiration: push.expiration, collapseID: push.collapseID,
            acceptedAt: time, events: []))
        remember(serial)
        return serial
    }

    /// Adds `serial` to the window of recent records, letting the oldest go unless held.
    private mutating func remember(_ serial: UInt64) {
        guard logCapacity > 0 else { return }
        if order.count < logCapacity {
            order.append(serial)
            return
        }
        let oldest = order[orderHead]
        order[orderHead] = serial
        orderHead = (orderHead + 1) % logCapacity
        if !isHeld(oldest) { forget(oldest) }
    }

    /// Whether the record's push is stored now.
    private func isHeld(_ serial: UInt64) -> Bool {
        records[serial]?.lastState == .stored
    }

    /// Whether `serial` has left the window of recent records (kept only while held).
    private func isOutsideWindow(_ serial: UInt64) -> Bool {
        guard logCapacity > 0 else { return true }
        return order.count == logCapacity && serial < order[orderHead]
    }

    private mutating func forget(_ serial: UInt64) {
        records.removeValue(forKey: serial)
    }

    private mutating func change(_ serial: UInt64, _ event: DeliveryEvent) {
        guard let index = records.index(forKey: serial) else { return }
        // Changed in place: reading `records.values[index]` would copy the entry.
        let added = records.values[index].add(event, lines: &lines)
        changes.append((serial, added))
        feed.number(serial: serial, event: added)
    }

    /// Change `event` of record `serial`, as the feed lists it; nil once the log forgot it.
    func change(serial: UInt64, event: Int) -> DeliveryChange? {
        records[serial]?.change(event)
    }

    /// Lets go of records that left the window while held and are settled now: called once
    /// their changes have been taken. `numbered` is how many changes the update numbered,
    /// devices' connectivity included, so the feed keeps each record's changes among them.
    mutating func forgetSettled(_ changes: [(serial: UInt64, event: Int)], numbered: Int) {
        for change in changes where isOutsideWindow(change.serial) && !isHeld(change.serial) {
            if let entry = records[change.serial] { feed.keep(serial: change.serial, among: numbered) { entry.change($1) } }
            forget(change.serial)
        }
    }

    // Lookups scan: people and tests look, the push path never does, so it keeps no index.

    /// The newest record with this `apns-id`.
    func record(apnsID: String) -> DeliveryRecord? {
        records.values.filter { $0.record.apnsID == apnsID }.max { $0.record.serial < $1.record.serial }?.full
    }

    func record(uniqueID: String) -> DeliveryRecord? {
        records.values.filter { $0.record.uniqueID == uniqueID }.max { $0.record.serial < $1.record.serial }?.full
    }

    func record(serial: UInt64) -> DeliveryRecord? { records[serial]?.full }

    func records(deviceToken: DeviceToken) -> [DeliveryRecord] {
        records.values.filter { $0.record.deviceToken == deviceToken }.map(\.full).sorted { $0.serial < $1.serial }
    }

    func notificationCentre(for token: DeviceToken, at time: Date) -> NotificationCentre {
        let slot = devices[token] ?? DeviceSlot()
        var badges: [String: Int] = [:]
        for (topic, payload) in slot.badgeSources {
            if let badge = Self.badge(in: payload) { badges[topic] = badge }
        }
        return NotificationCentre(deviceToken: token, connectivity: slot.isOnline(at: time) ? .online : .offline,
                                  notifications: Array(slot.shown.suffix(settings.notificationCentreLimit)), badges: badges)
    }

    /// `aps.badge` when it is a whole number.
    static func badge(in payload: [UInt8]) -> Int? {
        guard case .object(let root)? = try? JSONParser.parse(payload), case .object(let aps)? = root["aps"],
              case .integer(let badge)? = aps["badge"] else { return nil }
        return Int(exactly: badge)
    }

    /// Tokens of the devices the model has state for, with their connectivity now.
    func deviceList(at time: Date) -> [(DeviceToken, DeviceConnectivity, held: Int, shown: Int)] {
        devices.map { ($0.key, $0.value.isOnline(at: time) ? .online : .offline, $0.value.held.count, $0.value.shown.count) }
            .sorted { $0.0.hex < $1.0.hex }
    }
}
