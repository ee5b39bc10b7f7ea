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
    /// Suffixes are matched on UTF-8 bytes, as APNs sees the header, not on characters: a
    /// combining or prepended mark before `.voip` does not hide the suffix.
    ///
    /// ```swift
    /// APNsPushType.voip.bundleID(fromTopic: "com.example.app.voip")  // "com.example.app"
    /// APNsPushType.voip.bundleID(fromTopic: "com.example.app")       // nil
    /// ```
    public func bundleID(fromTopic topic: String) -> String? {
        // Compared as UTF-8 bytes (suffixes are ASCII): this runs twice for every push the
        // mock validates, and `hasSuffix` compares by grapheme.
        let suffix = Self.suffixBytes[self] ?? []
        var topic = topic
        let bundleIDLength = topic.withUTF8 { bytes -> Int? in
            if suffix.isEmpty {
                // A plain bundle ID must not carry another type's suffix.
                for other in Self.suffixBytes.values where Self.bytes(bytes, endWith: other) { return nil }
                return bytes.count
            }
            guard bytes.count > suffix.count, Self.bytes(bytes, endWith: suffix) else { return nil }
            return bytes.count - suffix.count
        }
        guard let bundleIDLength else { return nil }
        if bundleIDLength == topic.utf8.count { return topic }
        return topic.withUTF8 { String(decoding: UnsafeBufferPointer(rebasing: $0[..<bundleIDLength]), as: UTF8.self) }
    }

    /// The push type a topic's suffix implies, for a push sent without `apns-push-type`: the
    /// type whose suffix the topic ends with after a bundle ID (the longest such suffix),
    /// else `alert`. Compared as UTF-8 bytes, as ``bundleID(fromTopic:)`` compares them.
    ///
    /// ```swift
    /// APNsPushType.implied(byTopic: "com.example.app.voip")  // .voip
    /// APNsPushType.implied(byTopic: "com.example.app")       // .alert
    /// ```
    public static func implied(byTopic topic: String) -> APNsPushType {
        var topic = topic
        return topic.withUTF8 { bytes in
            var best = APNsPushType.alert
            var bestLength = 0
            for type in allCases {
                guard let suffix = suffixBytes[type], suffix.count > bestLength, bytes.count > suffix.count,
                      Self.bytes(bytes, endWith: suffix)
                else { continue }
                best = type
                bestLength = suffix.count
            }
            return best
        }
    }

    /// Each suffixed type's suffix as bytes.
    private static let suffixBytes: [APNsPushType: [UInt8]] = Dictionary(
        uniqueKeysWithValues: allCases.filter { !$0.topicSuffix.isEmpty }.map { ($0, Array($0.topicSuffix.utf8)) })

    private static func bytes(_ bytes: UnsafeBufferPointer<UInt8>, endWith suffix: [UInt8]) -> Bool {
        guard bytes.count >= suffix.count else { return false }
        let start = bytes.count - suffix.count
        for index in 0..<suffix.count where bytes[start + index] != suffix[index] { return false }
        return true
    }
}
