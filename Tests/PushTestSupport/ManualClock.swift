import Foundation
import Synchronization

/// A wall clock tests set by hand, for logic with an injected `now`.
public final class ManualClock: Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date(timeIntervalSince1970: 1_796_000_000)) {
        current = Mutex(start)
    }

    /// The time now.
    public var now: Date { current.withLock { $0 } }

    /// Moves the clock forward by `seconds`.
    public func advance(_ seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    /// The clock as a closure, the form the libraries take.
    public var closure: @Sendable () -> Date { { self.now } }
}

