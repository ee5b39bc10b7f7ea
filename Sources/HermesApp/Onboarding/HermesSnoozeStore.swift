import Foundation

/// The install sheet's snooze state, kept in a file so it survives app restarts, with an
/// injectable clock.
///
/// ```swift
/// let snooze = HermesSnoozeStore(file: HermesStateFile(url: supportFolder.appendingPathComponent("snooze.json")))
/// let until = try await snooze.snooze()       // "Later": one day the first time
/// await snooze.isSnoozed()                    // true until then
/// ```
public actor HermesSnoozeStore {
    /// What is persisted.
    public struct State: Codable, Sendable, Hashable {
        /// How many times the user chose "Later".
        public var snoozeCount: Int
        /// The sheet stays away until this moment.
        public var snoozedUntil: Date?

        /// A state; the default is "never snoozed".
        public init(snoozeCount: Int = 0, snoozedUntil: Date? = nil) {
            self.snoozeCount = snoozeCount
            self.snoozedUntil = snoozedUntil
        }

        enum CodingKeys: String, CodingKey {
            case snoozeCount = "snooze_count"
            case snoozedUntil = "snoozed_until"
        }
    }

    private let file: HermesStateFile<State>
    private let now: @Sendable () -> Date
    private var state: State

    /// Loads the saved state; a missing or unreadable file starts from no snoozes (an
    /// unreadable one is overwritten at the next save).
    public init(file: HermesStateFile<State>, now: @escaping @Sendable () -> Date = Date.init) {
        self.file = file
        self.now = now
        self.state = (try? file.load()) ?? State()
    }

    /// The current state.
    public var current: State { state }

    /// Whether the sheet is snoozed now.
    public func isSnoozed() -> Bool {
        guard let until = state.snoozedUntil else { return false }
        return now() < until
    }

    /// "Later": snoozes for the next step of ``HermesSnoozeSchedule`` and saves.
    ///
    /// - Returns: When the sheet may show again.
    /// - Throws: ``HermesStateFileError`` when the state cannot be saved (the snooze
    ///   still holds for this run).
    @discardableResult
    public func snooze() throws(HermesStateFileError) -> Date {
        state.snoozeCount += 1
        let days = HermesSnoozeSchedule.days(forSnooze: state.snoozeCount)
        let until = now().addingTimeInterval(TimeInterval(days) * 86_400)
        state.snoozedUntil = until
        try file.save(state)
        return until
    }

    /// Forgets every snooze, once the plugin is ready: if it disappears later, the backoff
    /// starts again at one day.
    public func reset() throws(HermesStateFileError) {
        guard state != State() else { return }
        state = State()
        try file.save(state)
    }
}
