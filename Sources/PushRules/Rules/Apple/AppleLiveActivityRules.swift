import APNsCore
import StrictJSON

/// The Live Activity rule of the `apple` profile, `apple.liveactivity`, for device pushes
/// and broadcasts alike: APNsCore's ``LiveActivityPayloadRules``, the rules behind the
/// mock's `aps.liveactivity-*` lints (docs/fidelity.md). APNs names no reason for them.
enum AppleLiveActivityRules {
    static let all: [any PushRule] = [liveActivity]

    static let id = "apple.liveactivity"

    /// A Live Activity push (`apns-push-type: liveactivity`, or a broadcast, which is
    /// one): `event`, `timestamp` and `content-state` present, and on `start`
    /// `attributes-type`, `attributes` and `alert`; dates in seconds; `input-push-token` or
    /// `input-push-channel` (iOS 18) only on `start`, one of them, the channel base64; a
    /// broadcast never starts an activity.
    /// Scoped to Live Activity pushes (a broadcast is sent as one), as the type APNs goes by:
    /// a report counts it only for them.
    static let liveActivity = FunctionRule(id: id, scope: RuleScope(pushTypes: [APNsPushType.liveactivity.rawValue])) { push, findings in
        let isBroadcast = push.headers.channelID != nil
        guard case .object(let aps)? = push.payloadObject?[APNsPayloadKey.aps] else { return }
        let problems = LiveActivityPayloadRules.problems(isBroadcast: isBroadcast) { key in
            aps[key].map(JSONShallowValue.init)
        }
        for problem in problems {
            findings.append(Finding(
                rule: id, path: JSONPath(components: [.key(APNsPayloadKey.aps), .key(problem.key)]), message: problem.message))
        }
    }
}
