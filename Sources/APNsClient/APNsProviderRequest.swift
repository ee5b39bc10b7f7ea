/// A request to APNs that is not a device push: a broadcast, or a channel management call.
/// `APNsClient` adds the provider token and `apns-request-id`, and retries it as a push.
struct APNsProviderRequest: Sendable {
    var method: String
    var path: String
    /// Fields besides `authorization` and `apns-request-id`.
    var headers: [(String, String)]
    var body: [UInt8]
    /// The caller's `apns-request-id`; nil for a generated one.
    var requestID: String?
}
