import APNsCapture
import APNsCore
import Foundation
import Synchronization

/// What happens after APNs' 200: each device's connectivity, the pushes APNs stores for it,
/// what reaches its screen, and a delivery log of every change with its time
/// (docs/delivery.md).
///
/// The mock hands it every answered push on the connection's event loop; it takes one short
/// lock, touches no disk, and holds at most one stored push per topic per device. Time comes
/// from the clock the mock was given, and changes that fall due between two looks (a device
/// coming online, a stored push expiring) are played at their own times whenever anything
/// looks or pushes, and by the mock's control loop every ``tickInterval``.
///
/// ```swift
/// let mock = try MockAPNsServer.startForTesting(configure: { $0.delivery.enabled = true }, now: clock.closure)
/// mock.delivery.schedule(DeviceConnectivityPlan(offlineWindows: [.init(start: 10, duration: 30)]), for: token)
/// // ... pushes ...
/// clock.advance(40)
/// #expect(mock.delivery.record(apnsID: id)?.state == .delivered)
/// #expect(mock.delivery.notificationCentre(for: token).notifications.count == 1)
/// ```
public final class DeliveryModel: Sendable {
    /// The settings it started with.
    public let settings: DeliverySettings
    /// How often the mock's control loop plays changes that fell due.
    public static let tickInterval = Duration.milliseconds(100)

    private let now: @Sendable () -> Date
    private let capture: CaptureStore?
    private let state: Mutex<State>

    struct State {
        var book: DeliveryBook
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 1
    }

    /// - Parameters:
    ///   - settings: the rules' settings and the devices' starting plans (applied now).
    ///   - logCapacity: records kept besides stored pushes (the mock gives its capture ring's size).
    ///   - capture: where each change goes as a `"kind":"delivery"` line, when it has a file.
    ///   - now: the clock.
    public init(settings: DeliverySettings, logCapacity: Int = CaptureStore.defaultCapacity, capture: CaptureStore? = nil,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.now = now
        self.capture = capture?.fileWriter == nil ? nil : capture
        var book = DeliveryBook(settings: settings, logCapacity: logCapacity, keepsLines: self.capture != nil)
        let start = now()
        for (token, plan) in settings.devices { book.apply(plan, to: token, at: start) }
        state = Mutex(State(book: book))
    }

    /// Whether pushes go through it (``DeliverySettings/enabled``).
    public var isEnabled: Bool { settings.enabled }

    // MARK: Devices

    /// Sets a device online or offline from now; coming online delivers what is stored.
    public func setConnectivity(_ connectivity: DeviceConnectivity, for token: DeviceToken) {
        mutate { $0.setConnectivity(connectivity, for: token, at: $1) }
    }

    /// Applies a plan from now: its state, and offline windows relative to now, replacing
    /// the device's earlier windows ("offline from t+10 s for 30 s").
    public func schedule(_ plan: DeviceConnectivityPlan, for token: DeviceToken) {
        mutate { $0.apply(plan, to: token, at: $1) }
    }

    /// Whether the device is reachable now.
    public func connectivity(of token: DeviceToken) -> DeviceConnectivity {
        read { $0.connectivity(of: token, at: $1) }
    }

    /// The devices the model has state for: connectivity, stored pushes, shown notifications.
    public func deviceSummaries() -> [DeviceSummary] {
        read { book, time in
            book.deviceList(at: time).map { DeviceSummary(deviceToken: $0.0, connectivity: $0.1, storedPushes: $0.held, shownNotifications: $0.shown) }
        }
    }

    /// One device as ``deviceSummaries()`` lists it.
    public struct DeviceSummary: Sendable, Hashable {
        public var deviceToken: DeviceToken
        public var connectivity: DeviceConnectivity
        public var storedPushes: Int
        public var shownNotifications: Int
    }

    /// What the device shows now, in order, with its badges.
    public func notificationCentre(for token: DeviceToken) -> NotificationCentre {
        read { $0.notificationCentre(for: token, at: $1) }
    }

    // MARK: The log

    /// The record of the push answered with this `apns-id` (the latest, if it was reused).
    public func record(apnsID: String) -> DeliveryRecord? { read { book, _ in book.record(apnsID: apnsID) } }

    /// The record of the push answered with this `apns-unique-id`.
    public func record(uniqueID: String) -> DeliveryRecord? { read { book, _ in book.record(uniqueID: uniqueID) } }

    /// The records of one device's pushes, oldest first.
    public func records(deviceToken: DeviceToken) -> [DeliveryRecord] {
        read { book, _ in book.records(deviceToken: deviceToken) }
    }

    /// Pushes stored for devices now, over all devices: at most one per topic per device.
    public var storedPushCount: Int { read { book, _ in book.heldCount } }

    /// Records the log holds now (the recent window, plus stored pushes').
    public var recordCount: Int { read { book, _ in book.records.count } }

    /// Plays every change due by the clock's time now. Looking and pushing do it too.
    public func advance() {
        mutate { book, time in book.advance(to: time) }
    }

    // MARK: The mock's side

    /// Files an accepted push.
    func accept(_ push: DeliveryInput) {
        mutate { $0.accept(push, at: $1) }
    }

    /// Logs a push answered 410.
    func reject(_ push: DeliveryInput, because reason: DeliveryReason) {
        mutate { $0.reject(push, because: reason, at: $1) }
    }

    /// Takes back the newest push filed with this `apns-id` for this device.
    func withdraw(apnsID: String, deviceToken: DeviceToken) {
        mutate { $0.withdraw(apnsID: apnsID, deviceToken: deviceToken, at: $1) }
    }

    /// Files a push as ``accept(_:)`` or ``reject(_:because:)`` does, and records `encoded`
    /// in `capture` with the lines of the changes it made right after it, in one entry of
    /// the file's queue (``CaptureStore/record(_:followedBy:acknowledgement:)``).
    func file(
        _ push: borrowing DeliveryInput, rejectedBecause reason: DeliveryReason?, recording encoded: inout CaptureStore.EncodedRecord,
        in capture: CaptureStore, acknowledgement: CaptureAcknowledgement?
    ) -> CaptureStore.Receipt {
        mutate(lending: push, { book, push, time in
            if let reason {
                book.reject(push, because: reason, at: time)
            } else {
                book.accept(push, at: time)
            }
        }, writing: { lines in
            capture.record(&encoded, followedBy: lines, acknowledgement: acknowledgement)
        }).written
    }

    // MARK: Locking

    /// Runs `body` under the lock, with no clock and no changes (the waits' bookkeeping).
    func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLock { body(&$0) }
    }

    private func read<Result>(_ body: (DeliveryBook, Date) -> Result) -> Result {
        mutate { book, time in
            book.advance(to: time)
            return body(book, time)
        }
    }

    /// Runs `body` on the book under the lock, and writes the capture lines of the changes
    /// it made to the file; then, unlocked, resumes the waits they satisfy.
    private func mutate<Result>(_ body: (inout DeliveryBook, Date) -> Result) -> Result {
        let capture = capture
        return mutate(lending: (), { book, _, time in body(&book, time) }, writing: { lines in
            // By index: the array lends each line, where `for line in lines` copies it.
            for index in lines.indices { capture?.appendToFile(lines[index]) }
        }).result
    }

    /// Runs `body` on the book, then `write` with the capture lines of the changes it made
    /// (empty without a file), both under the lock, so that the file has the log's order: a
    /// push's line before every line about it, in whatever order the event loops come.
    /// Then, unlocked, resumes the waits the changes satisfy.
    ///
    /// `input` is lent to `body` as an argument: a closure that captured a push would copy it,
    /// all its strings and its payload, twice per push.
    private func mutate<Input: ~Copyable & Sendable, Result, Written>(
        lending input: borrowing Input, _ body: (inout DeliveryBook, borrowing Input, Date) -> Result,
        writing write: (borrowing [CaptureDeliveryEvent]) -> Written
    ) -> (result: Result, written: Written) {
        let time = now()
        let (result, written, ready) = state.withLock { state -> (Result, Written, [Resumption]) in
            let numbered = state.book.feed.latest
            let result = body(&state.book, input, time)
            let written = write(state.book.lines ?? [])
            // Every change is numbered: a push's, and a device's connectivity, which has no line.
            guard state.book.feed.latest != numbered else { return (result, written, []) }
            // Both emptied in place, their buffers kept for the next push.
            state.book.lines?.removeAll(keepingCapacity: true)
            let ready = state.waiters.isEmpty ? [] : state.offer(state.book.changes)
            state.book.forgetSettled(state.book.changes, numbered: Int(state.book.feed.latest - numbered))
            state.book.changes.removeAll(keepingCapacity: true)
            return (result, written, ready)
        }
        for resumption in ready { resumption.resume() }
        return (result, written)
    }
}
