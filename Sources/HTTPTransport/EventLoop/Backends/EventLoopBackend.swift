internal import SystemSeam

/// The readiness mechanism an event loop runs on, chosen once per loop at its start.
///
/// epoll on Linux; `poll(2)` everywhere else, and on Linux when `APNS_MOCK_EVENT_LOOP=poll`
/// is set, so that the suite runs the portable backend here too (docs/transport.md).
enum EventLoopBackend: String, Sendable, CaseIterable {
    case epoll
    case poll

    /// Names the backend for every event loop of the process: `epoll` or `poll`.
    static let environmentVariable = EventLoopBackendSetting.environmentVariable

    /// The backend `APNS_MOCK_EVENT_LOOP` names, or the platform's default when it is unset
    /// or empty (SystemSeam's `EventLoopBackendSetting` has the rules).
    ///
    /// - Throws: ``TransportError/unknownEventLoopBackend(_:)`` for any other value, or for
    ///   `epoll` where there is none, so that a typo fails the start instead of testing the
    ///   wrong backend.
    init(environmentValue: String?) throws(TransportError) {
        guard let name = EventLoopBackendSetting.backendName(for: environmentValue),
              let backend = EventLoopBackend(rawValue: name) else {
            throw .unknownEventLoopBackend(environmentValue ?? "")
        }
        self = backend
    }

    /// Reads `APNS_MOCK_EVENT_LOOP` from the process environment.
    static func fromEnvironment() throws(TransportError) -> EventLoopBackend {
        try EventLoopBackend(environmentValue: EventLoopBackendSetting.processValue)
    }

    var isAvailable: Bool { EventLoopBackendSetting.availableNames.contains(rawValue) }

    func makeSelector() throws(TransportError) -> any Selector {
        switch self {
        case .poll:
            return try PollSelector()
        case .epoll:
            #if os(Linux)
            return try EpollSelector()
            #else
            throw .unknownEventLoopBackend(rawValue)
            #endif
        }
    }
}
