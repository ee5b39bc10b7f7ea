import APNsCore

/// The checks that broadcasts and channel management requests share: the push type's
/// spellings, the bundle ID of the path, and whether the sender may use broadcasts for it.
enum ChannelRules {
    /// Whether `text` names the Live Activity push type. Apple's own pages spell it
    /// `liveactivity`, `LiveActivity` and `Liveactivity`, so letter case is ignored
    /// (docs/fidelity.md, "Broadcast channels").
    static func isLiveActivity(_ text: String) -> Bool {
        text.utf8.elementsEqual("liveactivity".utf8) { a, b in
            (a >= UInt8(ascii: "A") && a <= UInt8(ascii: "Z") ? a | 0x20 : a) == b
        }
    }

    /// `TopicDisallowed` for a bundle ID that carries a push type's topic suffix
    /// (`com.example.app.push-type.liveactivity`): the path names the app itself.
    static func checkNoSuffix(_ bundleID: String) throws(PushRejection) {
        // Compared on bytes (`implied(byTopic:)`): `hasSuffix` compares graphemes, on every broadcast.
        let type = APNsPushType.implied(byTopic: bundleID)
        guard type.topicSuffix.isEmpty else {
            throw PushRejection(
                .topicDisallowed, "the path names the app by its bundle ID, without the \(type.topicSuffix) suffix: \(bundleID)")
        }
    }

    /// Whether the credentials cover the app and its broadcast capability is on: 403
    /// `TopicMismatch` for an app the token's registry or the certificate does not cover,
    /// 400 `FeatureNotEnabled` for an app whose broadcasts are off.
    static func checkApp(_ bundleID: String, auth: ConnectionAuthState, validator: PushValidator) throws(PushRejection) {
        if let certificate = auth.certificate {
            guard certificate.coveredTopics.contains(bundleID) else {
                throw PushRejection(.topicMismatch, "the certificate does not cover \(bundleID)")
            }
        } else {
            guard validator.registry.bundleIDs.contains(bundleID) else {
                throw PushRejection(.topicMismatch, "the provider token's team has no app \(bundleID); "
                    + PushValidator.servedApps(validator.registry.bundleIDs))
            }
        }
        guard validator.channels.isBroadcastEnabled(for: bundleID) else {
            throw PushRejection(.featureNotEnabled, "broadcast push is not enabled for \(bundleID)")
        }
    }
}
