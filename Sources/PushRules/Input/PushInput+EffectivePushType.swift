import APNsCore
import StrictJSON

extension PushInput {
    /// The push type APNs goes by: `apns-push-type` when it was sent (nil when it names no
    /// type APNs knows, which APNs rejects); without it, the type the topic's suffix implies
    /// (`.voip` is a VoIP push), and for a plain topic `background` when `aps` has
    /// `content-available` and no `alert`, `sound` or `badge`, as the mock infers it.
    ///
    /// Rules that judge what the sender sent (`apple.push-type`) read ``PushHeaders/pushType``;
    /// rules that judge what APNs does with the push (its size limit, a background push's
    /// priority) read this.
    ///
    /// A broadcast (``PushHeaders/channelID``) is a Live Activity push however its header
    /// spells the type: the broadcast API takes Apple's `liveactivity`, `LiveActivity` and
    /// `Liveactivity` alike.
    var effectivePushType: APNsPushType? {
        if isBroadcastOfLiveActivity { return .liveactivity }
        if let sent = headers.pushType { return APNsPushType(rawValue: sent) }
        let implied = headers.topic.map(APNsPushType.implied(byTopic:)) ?? .alert
        if implied == .alert, looksLikeBackground { return .background }
        return implied
    }

    /// The push type rule scopes and the shape rule go by, as text: `apns-push-type` as
    /// sent, even a type APNs does not know (a scope may name it; the shape rule holds it to
    /// no shape), and without the header ``effectivePushType``.
    var effectivePushTypeName: String {
        // Without the header the inferred type is never nil; `.alert` only spares an unwrap.
        if isBroadcastOfLiveActivity { return APNsPushType.liveactivity.rawValue }
        return headers.pushType ?? (effectivePushType ?? .alert).rawValue
    }

    /// A broadcast whose `apns-push-type` is `liveactivity` in any case.
    var isBroadcastOfLiveActivity: Bool {
        headers.channelID != nil && headers.pushType?.lowercased() == APNsPushType.liveactivity.rawValue
    }

    /// Whether `aps` has `content-available` and nothing to show: what makes a push sent
    /// without `apns-push-type` a background push.
    private var looksLikeBackground: Bool {
        guard case .object(let aps)? = payloadObject?[APNsPayloadKey.aps], aps[APNsPayloadKey.contentAvailable] != nil else {
            return false
        }
        return aps[APNsPayloadKey.alert] == nil && aps[APNsPayloadKey.sound] == nil && aps[APNsPayloadKey.badge] == nil
    }
}
