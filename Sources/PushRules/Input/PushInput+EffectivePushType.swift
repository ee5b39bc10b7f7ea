import APNsCore

extension PushInput {
    /// The push type APNs goes by: `apns-push-type` when it was sent (nil when it names no
    /// type APNs knows, which APNs rejects); without it, the type the topic's suffix implies
    /// (`.voip` is a VoIP push), as the mock infers it.
    ///
    /// Rules that judge what the sender sent (`apple.push-type`) read ``PushHeaders/pushType``;
    /// rules that judge what APNs does with the push (its size limit) read this.
    var effectivePushType: APNsPushType? {
        if let sent = headers.pushType { return APNsPushType(rawValue: sent) }
        return headers.topic.map(APNsPushType.implied(byTopic:)) ?? .alert
    }
}
