/// The `apns-push-type` header: what kind of notification a push is.
///
/// Each type requires a topic suffix after the bundle ID (`mdm` uses the certificate's UID).
public enum APNsPushType: String, Sendable, Hashable, CaseIterable {
    case alert
    case background
    case voip
    case complication
    case fileprovider
    case liveactivity
    case location
    case pushtotalk
    case widgets
    case controls
    case mdm

    /// What `apns-topic` must end with after the bundle ID; empty for `alert` and `background`.
    ///
    /// - Important: `mdm` topics are the MDM certificate's UID, not a bundle ID; its suffix is empty.
    public var topicSuffix: String {
        switch self {
        case .alert, .background, .mdm: ""
        case .voip: ".voip"
        case .complication: ".complication"
        case .fileprovider: ".pushkit.fileprovider"
        case .liveactivity: ".push-type.liveactivity"
        case .location: ".location-query"
        case .pushtotalk: ".voip-ptt"
        case .widgets: ".push-type.widgets"
        case .controls: ".push-type.controls"
        }
    }

    /// The largest payload APNs accepts for this type: 5120 bytes for VoIP, else 4096.
    public var maxPayloadSize: Int { self == .voip ? 5120 : 4096 }

    /// The bundle ID a topic names for this push type, or nil when the suffix is wrong.
    ///
    /// ```swift
    /// APNsPushType.voip.bundleID(fromTopic: "com.example.app.voip")  // "com.example.app"
    /// APNsPushType.voip.bundleID(fromTopic: "com.example.app")       // nil
    /// ```
    public func bundleID(fromTopic topic: String) -> String? {
        let suffix = topicSuffix
        if suffix.isEmpty {
            // A plain bundle ID must not carry another type's suffix.
            let other = Self.allCases.first { !$0.topicSuffix.isEmpty && topic.hasSuffix($0.topicSuffix) }
            return other == nil ? topic : nil
        }
        guard topic.hasSuffix(suffix), topic.count > suffix.count else { return nil }
        return String(topic.dropLast(suffix.count))
    }
}
