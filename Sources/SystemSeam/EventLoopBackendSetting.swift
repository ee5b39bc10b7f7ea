/// `APNS_MOCK_EVENT_LOOP`: which readiness API every event loop of a process waits in
/// (docs/transport.md, "Event-loop backends").
///
/// The rules live here, below every module, so that the transport picks its backend by them
/// (HTTPTransport's `EventLoopBackend`) and every command refuses a value they reject as a
/// usage error before anything starts (CLISupport's `parseOrExit`), with the same message.
package enum EventLoopBackendSetting {
    /// The variable's name.
    package static let environmentVariable = "APNS_MOCK_EVENT_LOOP"

    /// The backends this platform has: epoll only on Linux, `poll(2)` everywhere.
    package static var availableNames: [String] {
        #if os(Linux)
        ["epoll", "poll"]
        #else
        ["poll"]
        #endif
    }

    /// The backend when the variable is unset or empty.
    package static var defaultName: String {
        #if os(Linux)
        "epoll"
        #else
        "poll"
        #endif
    }

    /// The backend `value` names: the default for nil or empty; nil when it names none
    /// available here (a typo, or `epoll` off Linux).
    package static func backendName(for value: String?) -> String? {
        guard let value, !value.isEmpty else { return defaultName }
        return availableNames.contains(value) ? value : nil
    }

    /// What to tell a person whose variable holds `value`, which names no backend here.
    package static func unknownValueMessage(_ value: String) -> String {
        "\(environmentVariable)='\(value)' names no event-loop backend here: "
            + "use '\(availableNames.joined(separator: "' or '"))', or unset it for the default ('\(defaultName)')"
    }

    /// The variable's value in this process's environment, or nil when unset.
    package static var processValue: String? {
        getenv(environmentVariable).map { String(cString: $0) }
    }
}
