import StrictJSON

/// One Live Activity rule an `aps` dictionary breaks: which rule, the `aps` key it is about
/// and a sentence a developer can act on.
public struct LiveActivityProblem: Sendable, Hashable {
    /// The rules of ``LiveActivityPayloadRules``.
    public enum Rule: Sendable, Hashable {
        /// `event`, `timestamp` or `content-state` is missing, or on `start` `attributes-type`,
        /// `attributes` or `alert`.
        case missingField
        /// `timestamp`, `stale-date` or `dismissal-date` is in milliseconds.
        case dateUnit
        /// `input-push-token`/`input-push-channel` on an event other than `start`, both at
        /// once, or a channel id that is not base64.
        case inputPush
        /// A broadcast whose `event` is `start`.
        case broadcastStart
    }

    /// Which rule is broken.
    public var rule: Rule
    /// The `aps` key the problem is about, such as `stale-date`.
    public var key: String
    /// What is wrong and what to send instead.
    public var message: String

    /// A problem value, for tests and adapters.
    public init(rule: Rule, key: String, message: String) {
        self.rule = rule
        self.key = key
        self.message = message
    }
}

/// The rules between the keys of a Live Activity push's `aps` and its `event`, for device
/// pushes and broadcasts alike (Apple, "Starting and updating Live Activities with
/// ActivityKit push notifications"), in one place for the mock's lints and push-inspect's
/// `apple.liveactivity` rule. Apple names no rejection reason for any of them.
///
/// The types of single keys (`timestamp` a whole number, `attributes` an object…) are not
/// checked here: they are the key checks every push type gets.
///
/// ```swift
/// let problems = LiveActivityPayloadRules.problems(isBroadcast: false) { aps[$0] }
/// ```
public enum LiveActivityPayloadRules {
    /// The first UNIX time read as milliseconds: 10^11 seconds is the year 5138, while
    /// 10^11 milliseconds is 1973. A date in seconds past it is no real date either.
    public static let millisecondsThreshold: Int64 = 100_000_000_000

    /// `content-state` on every event: an activity started by push needs its first content too.
    private static let requiredOnEveryEvent = [APNsPayloadKey.event, APNsPayloadKey.timestamp, APNsPayloadKey.contentState]
    private static let requiredOnStart = [APNsPayloadKey.attributesType, APNsPayloadKey.attributes, APNsPayloadKey.alert]
    private static let dateKeys = [APNsPayloadKey.timestamp, APNsPayloadKey.staleDate, APNsPayloadKey.dismissalDate]

    /// The rules `aps` breaks, in a fixed order: missing keys, date units, a broadcast that
    /// starts, the iOS 18 input-push keys.
    ///
    /// - Parameters:
    ///   - isBroadcast: whether the push goes to a channel (`/4/broadcasts/apps/…`).
    ///   - aps: the value of one `aps` key, nil when absent.
    public static func problems(isBroadcast: Bool, aps: (String) -> JSONShallowValue?) -> [LiveActivityProblem] {
        var problems: [LiveActivityProblem] = []
        let starts = aps(APNsPayloadKey.event) == .string(APNsPayloadKey.startEvent)
        var required = requiredOnEveryEvent
        if starts { required += requiredOnStart }
        for key in required where aps(key) == nil {
            problems.append(LiveActivityProblem(
                rule: .missingField, key: key,
                message: "a Live Activity push\(starts ? " that starts an activity" : "") needs \(key)"))
        }
        // A date in milliseconds is a whole number too: the activity would never go stale,
        // or be dismissed in the year 50,000.
        for key in dateKeys {
            guard case .integer(let value)? = aps(key), value >= millisecondsThreshold else { continue }
            problems.append(LiveActivityProblem(
                rule: .dateUnit, key: key,
                message: "\(key) \(value) looks like milliseconds; Apple documents UNIX seconds (\(value / 1000))"))
        }
        if isBroadcast, starts {
            problems.append(LiveActivityProblem(
                rule: .broadcastStart, key: APNsPayloadKey.event,
                message: "a broadcast cannot start a Live Activity; start it with a push to the device's push-to-start token, "
                    + "with input-push-channel to subscribe it to the channel"))
        }
        inputPushProblems(starts: starts, aps: aps, into: &problems)
        return problems
    }

    /// iOS 18: a push that starts an activity may ask for the new activity's update token
    /// (`input-push-token: 1`) or subscribe it to a channel (`input-push-channel`), one or
    /// the other. On any other event there is no new activity to give them to.
    private static func inputPushProblems(starts: Bool, aps: (String) -> JSONShallowValue?, into problems: inout [LiveActivityProblem]) {
        let token = aps(APNsPayloadKey.inputPushToken)
        let channel = aps(APNsPayloadKey.inputPushChannel)
        guard token != nil || channel != nil else { return }
        func add(_ key: String, _ message: String) {
            problems.append(LiveActivityProblem(rule: .inputPush, key: key, message: message))
        }
        guard starts else {
            for (key, value) in [(APNsPayloadKey.inputPushToken, token), (APNsPayloadKey.inputPushChannel, channel)] where value != nil {
                add(key, "\(key) applies only to a push that starts an activity (event start); the device ignores it here")
            }
            return
        }
        if token != nil, channel != nil {
            add(APNsPayloadKey.inputPushChannel,
                "give input-push-token or input-push-channel, not both: an activity gets updates by its own token or by a channel")
        }
        if case .string(let id)? = channel, !ChannelIDSyntax.isWellFormed(id) {
            add(APNsPayloadKey.inputPushChannel,
                "input-push-channel must be a channel id as the channel API returned it (base64), found \(id.debugDescription)")
        }
    }
}
