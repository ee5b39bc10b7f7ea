import APNsCore

/// Which pushes a fault rule applies to.
///
/// Every criterion that is set must hold; a match with none set applies to every push.
///
/// ```swift
/// FaultMatch(topic: "com.example.app.voip", pushType: .voip)
/// FaultMatch.any
/// ```
public struct FaultMatch: Sendable, Hashable {
    /// Only pushes to this device token.
    public var deviceToken: DeviceToken?
    /// Only pushes whose `apns-topic` is exactly this.
    public var topic: String?
    /// Only pushes whose `apns-push-type` is this.
    public var pushType: APNsPushType?
    /// Only broadcasts to this `apns-channel-id`.
    public var channelID: String?

    /// A match on the criteria given; leave all out to match every push.
    public init(deviceToken: DeviceToken? = nil, topic: String? = nil, pushType: APNsPushType? = nil, channelID: String? = nil) {
        self.deviceToken = deviceToken
        self.topic = topic
        self.pushType = pushType
        self.channelID = channelID
    }

    /// Matches every push.
    public static let any = FaultMatch()

    /// Whether no criterion is set.
    public var isAny: Bool { deviceToken == nil && topic == nil && pushType == nil && channelID == nil }

    /// Whether a push with these attributes matches. A criterion the push lacks (no topic
    /// header, say) does not match.
    public func matches(deviceToken: DeviceToken?, topic: String?, pushType: APNsPushType?, channelID: String? = nil) -> Bool {
        if let wanted = self.channelID, wanted != channelID { return false }
        if let wanted = self.deviceToken, wanted != deviceToken { return false }
        if let wanted = self.topic, wanted != topic { return false }
        if let wanted = self.pushType, wanted != pushType { return false }
        return true
    }
}

extension FaultMatch: CustomStringConvertible {
    /// `any push`, or the criteria, such as `topic com.example.app, push type voip`.
    public var description: String {
        var parts: [String] = []
        if let deviceToken { parts.append("token \(deviceToken.masked)") }
        if let topic { parts.append("topic \(topic)") }
        if let pushType { parts.append("push type \(pushType.rawValue)") }
        if let channelID { parts.append("channel \(channelID)") }
        return parts.isEmpty ? "any push" : parts.joined(separator: ", ")
    }
}
