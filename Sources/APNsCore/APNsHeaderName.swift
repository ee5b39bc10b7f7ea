/// Header names of the APNs provider API, each defined once.
public enum APNsHeaderName {
    public static let authorization = "authorization"
    public static let pushType = "apns-push-type"
    public static let id = "apns-id"
    public static let uniqueID = "apns-unique-id"
    public static let expiration = "apns-expiration"
    public static let priority = "apns-priority"
    public static let topic = "apns-topic"
    public static let collapseID = "apns-collapse-id"
    public static let contentType = "content-type"
    /// A broadcast channel's id (base64): on broadcasts and channel management requests.
    public static let channelID = "apns-channel-id"
    /// A broadcast or channel management request's id (a UUID), echoed in the answer.
    public static let requestID = "apns-request-id"
}
