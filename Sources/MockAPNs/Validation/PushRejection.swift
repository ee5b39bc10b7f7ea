import APNsCore

/// A validation step's failure: the reason (with its status), a sentence for people, and
/// the 410 timestamp. Steps throw it; ``PushValidator`` turns it into a verdict.
struct PushRejection: Error {
    let reason: APNsReason
    let message: String
    var timestamp: Int64?

    init(_ reason: APNsReason, _ message: String, timestamp: Int64? = nil) {
        self.reason = reason
        self.message = message
        self.timestamp = timestamp
    }
}
