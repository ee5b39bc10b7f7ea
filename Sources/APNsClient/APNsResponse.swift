/// APNs accepted a push (status 200).
public struct APNsResponse: Sendable, Hashable {
    /// `apns-id`: the push's id, the same on every attempt.
    public var apnsID: String
    /// `apns-unique-id`, which only the sandbox sends (for the Push Notifications Console).
    public var uniqueID: String?
    /// The HTTP status: 200.
    public var status: Int
    /// The retry policy's attempts the push took, the accepted one included: 1 when no
    /// retry was needed.
    ///
    /// Sends that are not retries are not counted, so the push may have been sent more
    /// often: a resend after GOAWAY or REFUSED_STREAM said the server had not processed it
    /// (at most twice), and the one resend each after `ExpiredProviderToken` and
    /// `TooManyProviderTokenUpdates`. A mock's capture shows every send.
    public var attempts: Int

    /// A response value, for tests and adapters.
    public init(apnsID: String, uniqueID: String?, status: Int = 200, attempts: Int = 1) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.status = status
        self.attempts = attempts
    }
}
