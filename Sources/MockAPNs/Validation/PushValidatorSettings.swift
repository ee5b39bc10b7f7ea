import APNsCore

extension PushValidator {
    /// Choices where Apple is silent. Defaults are the mock's documented best guesses
    /// (see `docs/fidelity.md`); each can be changed to match what a team observed.
    public struct Settings: Sendable, Hashable {
        /// Accept a push without `apns-push-type` (with a `header.push-type-missing` lint),
        /// as APNs does outside watchOS. When false, such a push gets `InvalidPushType`.
        public var acceptsMissingPushType: Bool = true
        /// Answer `BadPriority` to `apns-push-type: background` at priority 10, which
        /// Apple calls "an error" without naming a reason. When false, accept it with a
        /// `header.background-priority` lint.
        public var rejectsImmediateBackgroundPushes: Bool = true
        /// Answer `PayloadEmpty` to a body that is not a JSON object (nothing deliverable).
        /// When false, accept it with a `payload.not-json` or `payload.not-object` lint.
        public var rejectsMalformedPayloads: Bool = true
        /// Payload objects and arrays nested deeper than this are not JSON to the mock.
        public var payloadNestingLimit: Int = 64
        /// Rejections after which the server sends GOAWAY and closes, as APNs does for
        /// errors no later push on the connection could fix.
        public var goAwayReasons: Set<APNsReason> = [.badCertificate, .badCertificateEnvironment]

        /// The defaults described on each property.
        public init() {}

        /// The defaults, spelled out at the call site.
        public static func makeDefault() -> Settings { Settings() }
    }
}
