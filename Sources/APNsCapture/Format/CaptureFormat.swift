/// The JSON Lines capture format: its version and every key, each defined once.
///
/// `docs/capture-format.md` describes the format for readers such as `push-inspect`.
enum CaptureFormat {
    /// The value of `"v"` this version writes.
    static let version: Int64 = 2
    /// The earlier version, which readers still read into the same records.
    static let version1: Int64 = 1
    /// The value of `"kind"` of a push's record.
    static let pushKind: StaticString = "push"
    /// The value of `"kind"` of a delivery event (``CaptureDeliveryEvent``).
    static let deliveryKind: StaticString = "delivery"
    /// Kinds this package writes besides pushes: a reader of pushes skips them without a
    /// warning, since they are no damage and no record of a later format.
    static let otherKnownKinds: Set<String> = [deliveryKind.description, CaptureChannelOperationEncoder.kind]

    /// Keys of a record line, in the order they are written.
    ///
    /// Keys are `StaticString`s: the encoder writes some 25 per line, and copies a constant's
    /// bytes at a fixed address where a `String` would first be asked for its UTF-8.
    enum Key {
        static let version: StaticString = "v"
        static let sequence: StaticString = "seq"
        static let kind: StaticString = "kind"
        static let time: StaticString = "time"
        static let environment: StaticString = "env"
        static let connection: StaticString = "conn"
        static let method: StaticString = "method"
        static let path: StaticString = "path"
        static let headers: StaticString = "headers"
        static let token: StaticString = "token"
        static let deviceToken: StaticString = "device_token"
        static let topic: StaticString = "topic"
        static let pushType: StaticString = "push_type"
        static let priority: StaticString = "priority"
        static let expiration: StaticString = "expiration"
        static let collapseID: StaticString = "collapse_id"
        static let teamID: StaticString = "team_id"
        static let keyID: StaticString = "key_id"
        /// A broadcast's `apns-channel-id`.
        static let channelID: StaticString = "channel_id"
        static let payload: StaticString = "payload"
        static let status: StaticString = "status"
        static let reason: StaticString = "reason"
        static let explanation: StaticString = "explanation"
        static let injected: StaticString = "injected"
        static let apnsID: StaticString = "apns_id"
        static let uniqueID: StaticString = "unique_id"
        /// A broadcast's `apns-request-id`, as answered.
        static let requestID: StaticString = "request_id"
        static let timestamp: StaticString = "timestamp"
        static let connectionAction: StaticString = "conn_action"
        static let lint: StaticString = "lint"
        static let faults: StaticString = "faults"
        // Delivery events (`"kind":"delivery"`).
        static let state: StaticString = "state"
        static let why: StaticString = "why"
        static let by: StaticString = "by"
    }

    /// Keys inside `"token"`.
    enum TokenKey {
        static let header: StaticString = "header"
        static let claims: StaticString = "claims"
        static let fingerprint: StaticString = "fingerprint"
    }

    /// Keys inside `"payload"`.
    enum PayloadKey {
        static let size: StaticString = "size"
        /// Version 2: the body as JSON, compacted; version 1: the body as validation parsed it.
        static let parsed: StaticString = "parsed"
        /// The exact body as a string: version 2 writes it only when `parsed` does not give
        /// the bytes back; version 1 always (base64 text when `base64` is true).
        static let raw: StaticString = "raw"
        /// Version 2: the body in base64, when it is not UTF-8; version 1: whether `raw` is base64.
        static let base64: StaticString = "base64"
    }

    /// Keys inside each `"lint"` entry.
    enum LintKey {
        static let code: StaticString = "code"
        static let message: StaticString = "message"
        static let path: StaticString = "path"
    }

    /// Values of `"conn_action"`.
    enum ConnectionActionValue {
        static let none = "none"
        static let goAway = "goaway"
        static let close = "close"
    }

    /// How deep a payload may nest and still count as JSON (`parsed`): as deep as the
    /// mock's deepest payload nesting limit.
    static let maximumPayloadDepth = 512

    /// Nesting limit when reading a line: a payload sits two levels down inside the record
    /// (three in version 1's `token` claims at most), so its own limit plus three.
    static let maximumLineDepth = maximumPayloadDepth + 3
}
