import HTTPTransport

/// What the mock keeps per HTTP/2 connection to an APNs listener.
struct EndpointConnectionState: Sendable {
    var auth: ConnectionAuthState
    /// Whether SETTINGS_MAX_CONCURRENT_STREAMS is currently 1 because the last push was
    /// rejected (APNs lowers it after an error and restores it after a success).
    var lowered = false
    /// Whether the connection has been granted the configured stream limit.
    var granted = false

    enum Key: HTTPConnectionStateKey {
        typealias Value = EndpointConnectionState
    }
}
