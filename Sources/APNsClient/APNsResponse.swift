/// APNs accepted a push (status 200).
public struct APNsResponse: Sendable, Hashable {
    /// `apns-id`: the push's id, the same on every attempt.
    public var apnsID: String
    /// `apns-unique-id`, which only the sandbox sends (for the Push Notifications Console).
    public var uniqueID: String?
    /// The HTTP status: 200.
    public var status: Int
    /// How many times the push was sent before it was accepted; 1 without retries.
    public var attempts: Int

    /// A response value, for tests and adapters.
    public init(apnsID: String, uniqueID: String?, status: Int = 200, attempts: Int = 1) {
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.status = status
        self.attempts = attempts
    }
}
