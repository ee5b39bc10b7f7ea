internal import SystemSeam

/// The readiness mechanism an event loop runs on, chosen once per loop at its start.
///
/// epoll on Linux; `poll(2)` everywhere else, and on Linux when `APNS_MOCK_EVENT_LOOP=poll`
/// is set, so that the suite runs the portable backend here too (docs/transport.md).
enum EventLoopBackend: String, Sendable, CaseIterable {
    case epoll
    case poll

    /// Names the backend for every event loop of the process: `epoll` or `poll`.
    static let environmentVariable = "APNS_MOCK_EVENT_LOOP"

    /// The backend `APNS_MOCK_EVENT_LOOP` names, or the platform's default when it is unset
    /// or empty.
    ///
    /// - Throws: ``TransportError/unknownEventLoopBackend(_:)`` for any other value, or for
    ///   `epoll` where there is none, so that a typo fails the start instead of testing the
    ///   wrong backend.
    init(environmentValue: String?) throws(TransportError) {
        guard let value = environmentValue, !value.isEmpty else {
            self = Self.platformDefault
            return
        }
        guard let backend = EventLoopBackend(rawValue: value), backend.isAvailable else {
            throw .unknownEventLoopBackend(value)
        }
        self = backend
    }

    /// Reads `APNS_MOCK_EVENT_LOOP` from the process environment.
    static func fromEnvironment() throws(TransportError) -> EventLoopBackend {
        try EventLoopBackend(environmentValue: getenv(environmentVariable).map { String(cString: $0) })
    }

    static var platformDefault: EventLoopBackend {
        #if os(Linux)
        .epoll
        #else
        .poll
        #endif
    }

    var isAvailable: Bool {
        #if os(Linux)
        true
        #else
        self == .poll
        #endif
    }

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
