/// Where an `HTTP2Client`'s one connection is in its life.
public enum HTTP2ClientState: Sendable, Hashable {
    /// Not connected yet; `connect()` or the first `send(_:)` connects.
    case idle
    /// TCP connect or TLS handshake in progress.
    case connecting
    /// Connected; requests are sent.
    case active
    /// The server sent GOAWAY: streams it accepted finish, new requests fail.
    case goingAway
    /// The connection failed, was lost or was closed; every request fails. Make a new client.
    case closed
}
