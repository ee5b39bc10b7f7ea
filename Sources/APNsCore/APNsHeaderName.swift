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
}
