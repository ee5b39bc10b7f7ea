/// What a ``SimulatorForwarder`` did with the pushes it was given.
public struct SimulatorForwardingCounts: Sendable, Hashable {
    /// Pushes `xcrun simctl push` took (exit status 0).
    public var forwarded = 0
    /// Pushes whose command could not start, exited non-zero or ran past its timeout.
    public var failed = 0
    /// Pushes not forwarded because the queue was full or forwarding had stopped.
    public var dropped = 0
    /// The newest failure, said for a person: the command, and its exit status and first
    /// line of standard error, or why it did not run.
    public var lastFailure: String?

    /// All counts zero, no failure.
    public init() {}

    /// The counts in Prometheus' text format, for the control API's `/metrics`.
    public var prometheusText: String {
        "# HELP apns_mock_simulator_pushes_total Accepted alert pushes given to xcrun simctl push, by result: forwarded,"
            + " failed (could not start, exit status not 0, or timed out) or dropped (the queue was full).\n"
            + "# TYPE apns_mock_simulator_pushes_total counter\n"
            + "apns_mock_simulator_pushes_total{result=\"forwarded\"} \(forwarded)\n"
            + "apns_mock_simulator_pushes_total{result=\"failed\"} \(failed)\n"
            + "apns_mock_simulator_pushes_total{result=\"dropped\"} \(dropped)\n"
    }
}
