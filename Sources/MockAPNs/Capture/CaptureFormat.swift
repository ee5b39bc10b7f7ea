/// The JSON Lines capture format: its version and every key, each defined once.
///
/// `docs/capture-format.md` describes the format for readers such as `push-inspect`.
enum CaptureFormat {
    /// The value of `"v"` this version writes and reads.
    static let version: Int64 = 1

    /// Keys of a record line, in the order they are written.
    enum Key {
        static let version = "v"
        static let sequence = "seq"
        static let time = "time"
        static let environment = "env"
        static let connection = "conn"
        static let method = "method"
        static let path = "path"
        static let headers = "headers"
        static let token = "token"
        static let deviceToken = "device_token"
        static let rawDeviceToken = "raw_device_token"
        static let topic = "topic"
        static let pushType = "push_type"
        static let priority = "priority"
        static let expiration = "expiration"
        static let collapseID = "collapse_id"
        static let teamID = "team_id"
        static let keyID = "key_id"
        static let payload = "payload"
        static let status = "status"
        static let reason = "reason"
        static let apnsID = "apns_id"
        static let uniqueID = "unique_id"
        static let timestamp = "timestamp"
        static let connectionAction = "conn_action"
        static let lint = "lint"
        static let faults = "faults"
    }

    /// Keys inside `"token"`.
    enum TokenKey {
        static let header = "header"
        static let claims = "claims"
        static let fingerprint = "fingerprint"
    }

    /// Keys inside `"payload"`.
    enum PayloadKey {
        static let size = "size"
        static let base64 = "base64"
        static let raw = "raw"
        static let parsed = "parsed"
    }

    /// Keys inside each `"lint"` entry.
    enum LintKey {
        static let code = "code"
        static let message = "message"
        static let path = "path"
    }

    /// Values of `"conn_action"`.
    enum ConnectionActionValue {
        static let none = "none"
        static let goAway = "goaway"
        static let close = "close"
    }

    /// Nesting limit when reading a line: a payload may nest `JSONParser.defaultMaximumDepth`
    /// deep, and sits three levels down inside the record.
    static let maximumLineDepth = 64
}
