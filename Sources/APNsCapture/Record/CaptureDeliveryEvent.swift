import APNsCore

/// One change of a push's delivery state, as the capture file's `"kind":"delivery"` lines
/// hold it (docs/capture-format.md, "Delivery events"): what happened to an accepted push
/// after its 200, and when.
public struct CaptureDeliveryEvent: Sendable, Hashable {
    /// The store's sequence number; shared with the file's push records, so a delivery event
    /// comes after the push it is about.
    public var sequence: UInt64
    /// When the change happened (which may be before the line was written: a stored push
    /// that expired is noticed later), microseconds since 1970.
    public var timeMicroseconds: Int64
    /// The push's `apns-id`.
    public var apnsID: String
    /// The push's `apns-unique-id`, from the sandbox.
    public var uniqueID: String?
    /// The device token, lowercase hex.
    public var deviceToken: DeviceToken
    /// The push's topic.
    public var topic: String?
    /// The state entered: `delivered`, `stored`, `discarded`, `replaced_on_screen`, `rejected`.
    public var state: String
    /// Why, for `stored` (`offline`, `power`), `discarded` (`coalesced`, `expired`, `budget`)
    /// and `rejected` (`unregistered`, `expired_token`, `internal_server_error`).
    public var why: String?
    /// The `apns-id` of the push that caused it, for `coalesced` and `replaced_on_screen`.
    public var by: String?

    public init(
        sequence: UInt64 = 0, timeMicroseconds: Int64, apnsID: String, uniqueID: String?, deviceToken: DeviceToken,
        topic: String?, state: String, why: String? = nil, by: String? = nil
    ) {
        self.sequence = sequence
        self.timeMicroseconds = timeMicroseconds
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.deviceToken = deviceToken
        self.topic = topic
        self.state = state
        self.why = why
        self.by = by
    }
}
