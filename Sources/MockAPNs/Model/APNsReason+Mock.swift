import APNsCore

extension APNsReason {
    /// The mock's own reason, not Apple's, for a push whose header list went past the
    /// listener's SETTINGS_MAX_HEADER_LIST_SIZE: answered 431 with `{"reason":…}`, so that
    /// an APNs client parses it like any rejection (`docs/fidelity.md` says why). Clients see
    /// it as a reason they do not know, which ``APNsReason`` keeps as `unknown` and treats as
    /// final.
    public static let requestHeaderFieldsTooLarge = APNsReason.unknown("RequestHeaderFieldsTooLarge")

    /// The HTTP status the mock answers this reason with: Apple's for the reasons in its
    /// table, 431 for ``requestHeaderFieldsTooLarge``, 500 for any other.
    var mockStatus: Int {
        if let status { return status }
        return self == .requestHeaderFieldsTooLarge ? 431 : 500
    }
}
