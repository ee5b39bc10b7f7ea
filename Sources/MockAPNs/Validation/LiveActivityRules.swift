import APNsCore
import StrictJSON

/// The mock's Live Activity lints, for device pushes and broadcasts alike: APNsCore's
/// ``LiveActivityPayloadRules`` (which push-inspect's `apple.liveactivity` shares), each
/// rule as its stable lint code. Apple names no rejection reason for any of them, so the
/// push is accepted (docs/fidelity.md, "Live Activities").
///
/// | Rule | Code |
/// |---|---|
/// | `event`, `timestamp` and `content-state` are present; `start` also needs `attributes-type`, `attributes` and `alert` | `aps.liveactivity-missing-field` |
/// | `timestamp`, `stale-date` and `dismissal-date` are seconds, not milliseconds | `aps.liveactivity-date-unit` |
/// | `input-push-token` / `input-push-channel` (iOS 18) only on `start`, one of them, the channel a base64 id | `aps.liveactivity-input-push` |
/// | a broadcast does not start an activity | `aps.liveactivity-broadcast-start` |
enum LiveActivityRules {
    /// Appends a warning for each Live Activity rule `aps` breaks.
    ///
    /// - Parameter isBroadcast: whether the push goes to a channel (`/4/broadcasts/apps/…`).
    static func lint(_ aps: JSONShallowObject, isBroadcast: Bool, into warnings: inout [PushLintWarning]) {
        for problem in LiveActivityPayloadRules.problems(isBroadcast: isBroadcast, aps: { aps[$0] }) {
            warnings.append(PushLintWarning(code: code(of: problem.rule), message: problem.message, path: "aps.\(problem.key)"))
        }
    }

    static func code(of rule: LiveActivityProblem.Rule) -> String {
        switch rule {
        case .missingField: PushLintCode.apsLiveActivityMissingField
        case .dateUnit: PushLintCode.apsLiveActivityDateUnit
        case .inputPush: PushLintCode.apsLiveActivityInputPush
        case .broadcastStart: PushLintCode.broadcastStartEvent
        }
    }
}
