import APNsCore

extension APNsReason {
    /// The mock's own reason, not Apple's, for a push whose header list went past the
    /// listener's SETTINGS_MAX_HEADER_LIST_SIZE: answered 431 with `{"reason":…}`, so that
    /// an APNs client parses it like any rejection (`docs/fidelity.md` says why). Clients see
    /// it as a reason they do not know, which ``APNsReason`` keeps as `unknown` and treats as
    /// final.
    public static let requestHeaderFieldsTooLarge = APNsReason.unknown("RequestHeaderFieldsTooLarge")

    /// The mock's own reason, not Apple's, for a push that did not arrive whole (headers and
    /// body) within the listener's request read timeout: answered 408 with `{"reason":…}`,
    /// then GOAWAY (`docs/fidelity.md`). Clients see a reason they do not know, final.
    public static let requestTimeout = APNsReason.unknown("RequestTimeout")

    /// The HTTP status the mock answers this reason with: Apple's for the reasons in its
    /// table, 431 for ``requestHeaderFieldsTooLarge``, 408 for ``requestTimeout``, 500 for any other.
    var mockStatus: Int {
        if let status { return status }
        switch self {
        case .requestHeaderFieldsTooLarge: return 431
        case .requestTimeout: return 408
        default: return 500
        }
    }
}
