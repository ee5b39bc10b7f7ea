import APNsCore
import Foundation
import JWTVerify
import StrictJSON

/// Decides, for one push, exactly what APNs would answer: the rules of the built-in
/// ``ValidatingPushHandler``, which checks each push of a connection with the validator
/// current when it arrives.
///
/// Checks run in this fixed order and the first failure wins (each step is one method
/// below, named after it):
///
/// | # | Step | Reasons |
/// |---|---|---|
/// | 0 | The header list fitted within the listener's limit (the transport stopped reading it otherwise) | 431 `RequestHeaderFieldsTooLarge` (the mock's own reason) |
/// | 1 | `:method` is `POST` (APNs checks it before the path: `GET /` → 405) | 405 `MethodNotAllowed` |
/// | 2 | `:path` is `/3/device/<token>` | 404 `BadPath`, 400 `MissingDeviceToken`, 400 `BadDeviceToken` (not hex of even length) |
/// | 3 | No `apns-*` or `authorization` header repeated | 400 `DuplicateHeaders` |
/// | 4 | `apns-id` is a canonical UUID | 400 `BadMessageId` |
/// | 5 | `apns-push-type` is one of the 11 types, lowercase | 400 `InvalidPushType` |
/// | 6 | `apns-collapse-id` is at most 64 bytes | 400 `BadCollapseId` |
/// | 7 | `apns-priority` is 1, 5 or 10; not 10 for `background` (setting) | 400 `BadPriority` |
/// | 8 | `apns-expiration` is UNIX seconds | 400 `BadExpirationDate` |
/// | 9 | `apns-topic`, if sent, is well formed | 400 `BadTopic` |
/// | 10 | Credentials present: a valid APNs certificate for this environment, or an `authorization` header | 403 `BadCertificate`, `BadCertificateEnvironment`, `MissingProviderToken` |
/// | 11 | A topic: `apns-topic`, or the certificate's only topic | 400 `MissingTopic` |
/// | 12 | Provider token valid (JWTVerify's rules, in its order) | 403 `InvalidProviderToken`, `ExpiredProviderToken`, `BadEnvironmentKeyIdInToken`, `UnrelatedKeyIdInToken`; 429 `TooManyProviderTokenUpdates` |
/// | 13 | Topic allowed: a registered app (on a token connection, one registered when the connection was bound) plus the push type's suffix, or covered by the certificate | 400 `TopicDisallowed` |
/// | 14 | Device token known in this environment and belonging to the topic's app | 400 `BadDeviceToken`, `DeviceTokenNotForTopic` |
/// | 15 | Payload: not empty, within the push type's limit, a JSON object | 400 `PayloadEmpty`, 413 `PayloadTooLarge` |
/// | 16 | Device still active | 410 `Unregistered` (+ timestamp), 410 `ExpiredToken` |
///
/// A push without `apns-push-type` when ``Settings/acceptsMissingPushType`` is false gets
/// `InvalidPushType` between steps 11 and 12, where the absent type would otherwise be
/// inferred from the topic.
///
/// Authentication (10-12) comes before anything about apps and devices (13-16), so an
/// unauthenticated client learns nothing about them. Payload comes before device state,
/// so a 410 means the push was otherwise right. Things APNs would accept but a developer
/// should know about become ``PushLintWarning``s on the details, never rejections.
///
/// Validation is cheap enough to run for every push: one pass over the headers, one
/// StrictJSON parse of the payload, no Foundation JSON, no regular expressions, and the
/// provider token checked through JWTVerify's cache.
public struct PushValidator: Sendable {
    /// The apps, keys and devices answered from.
    public var registry: MockRegistry { storage.registry }
    /// The provider-token rules.
    public var tokenVerifier: APNsProviderTokenVerifier { storage.tokenVerifier }
    /// Choices where Apple is silent.
    public var settings: Settings { storage.settings }

    /// Shared by copies: the server hands each push a copy of the current validator, which
    /// is then one reference count instead of one per field of the registry and settings.
    private let storage: Storage

    /// Internal, not private: a connection keeps the one its provider token was first
    /// accepted with (``ConnectionAuthState``), for the apps it was bound to then.
    final class Storage: Sendable {
        let registry: MockRegistry
        let tokenVerifier: APNsProviderTokenVerifier
        let settings: Settings
        let channels: ChannelStore

        init(registry: MockRegistry, tokenVerifier: APNsProviderTokenVerifier, settings: Settings, channels: ChannelStore) {
            self.registry = registry
            self.tokenVerifier = tokenVerifier
            self.settings = settings
            self.channels = channels
        }
    }

    /// The only method APNs accepts.
    static let postMethod = "POST"
    /// The longest `apns-collapse-id`, in bytes.
    public static let maximumCollapseIDLength = 64

    /// Creates a validator.
    ///
    /// - Parameters:
    ///   - registry: A snapshot of the registry; build a new validator when it changes.
    ///   - tokenVerifier: The provider-token verifier, normally built from `registry.keys`.
    ///     Share one across validators so its cache survives registry updates.
    ///   - settings: Choices where Apple is silent.
    ///   - channels: The broadcast channels broadcasts are checked against.
    public init(registry: MockRegistry, tokenVerifier: APNsProviderTokenVerifier, settings: Settings = .makeDefault(),
                channels: ChannelStore = ChannelStore()) {
        storage = Storage(registry: registry, tokenVerifier: tokenVerifier, settings: settings, channels: channels)
    }

    /// Creates a validator whose token verifier uses the registry's keys.
    ///
    /// - Parameter now: The token verifier's clock; nil for the system clock.
    public init(registry: MockRegistry, settings: Settings = .makeDefault(), now: (@Sendable () -> Date)? = nil,
                channels: ChannelStore = ChannelStore()) {
        self.init(registry: registry, tokenVerifier: APNsProviderTokenVerifier(keys: registry.keys, now: now), settings: settings,
                  channels: channels)
    }

    /// The broadcast channels broadcasts are checked against.
    public var channels: ChannelStore { storage.channels }

    /// Validates one push.
    ///
    /// - Parameters:
    ///   - request: The push as received.
    ///   - auth: The connection's authentication state; a valid provider token binds and
    ///     updates it, as APNs binds a connection on its first authenticated push.
    /// - Returns: The verdict, the details learned up to the deciding step, and whether the
    ///   connection is authenticated by now (``ConnectionAuthState/allowsConcurrentStreams``).
    public func validate(_ request: PushRequest, auth: inout ConnectionAuthState) -> PushDecision {
        var validation = PushDecision(details: PushDetails(), verdict: .accepted)
        validate(request, auth: &auth, into: &validation)
        return validation
    }

    /// Validates one push into `validation`, which must be fresh (no details, accepted).
    ///
    /// ``ValidatingPushHandler``'s path: a validation returned from inside the steps'
    /// do/catch would be copied into the caller's slot and the original destroyed, a
    /// reference count per field.
    func validate(_ request: PushRequest, auth: inout ConnectionAuthState, into validation: inout PushDecision) {
        do {
            try runSteps(request, auth: &auth, details: &validation.details)
        } catch {
            let isFatal = settings.goAwayReasons.contains(error.reason)
            validation.verdict = .rejected(reason: error.reason, timestamp: error.timestamp, isFatal: isFatal)
            validation.message = error.message
            describeUnverifiedToken(request, auth: &auth, details: &validation.details)
        }
        validation.connectionAuthenticated = auth.allowsConcurrentStreams
    }

    /// A push rejected before step 12 still shows the capture which token it carried (decoded
    /// header and claims, fingerprint), as a rejected token does.
    private func describeUnverifiedToken(_ request: PushRequest, auth: inout ConnectionAuthState, details: inout PushDetails) {
        guard details.tokenHeader == nil, auth.certificate == nil,
              let authorization = PushHeaderFields(request.headers).authorization,
              let token = BearerToken.token(in: authorization) else { return }
        if details.tokenFingerprint == nil { details.tokenFingerprint = fingerprint(of: token, auth: &auth) }
        if let decoded = try? DecodedJWT(parsing: String(token)) {
            details.tokenHeader = .object(decoded.header.fields)
            details.tokenClaims = .object(decoded.claims.fields)
        }
    }

    // MARK: Steps, in order

    private func runSteps(_ request: PushRequest, auth: inout ConnectionAuthState, details: inout PushDetails) throws(PushRejection) {
        // Read before any step, so that even a push rejected at step 1 echoes its apns-id.
        let headers = PushHeaderFields(request.headers)
        if let id = headers.id, APNsIDGenerator.isCanonicalUUID(id) { details.messageID = id }
        try checkHeaderListSize(request, details: &details)                                    // 0
        try checkMethod(request.method)                                                        // 1
        if BroadcastPath.isBroadcast(request.path) {
            try runBroadcastSteps(request, headers: headers, auth: &auth, details: &details)
            return
        }
        let deviceToken = try DevicePath.token(in: request.path, raw: &details.rawDeviceToken)  // 2
        details.deviceToken = deviceToken
        try checkRepeatedHeaders(headers, details: &details)                                    // 3
        try checkMessageID(headers.id, details: &details)                                       // 4
        let explicitType = try parsePushType(headers.pushType, details: &details)                // 5
        try checkCollapseID(headers.collapseID, details: &details)                              // 6
        try checkPriority(headers.priority, pushType: explicitType, details: &details)          // 7
        try checkExpiration(headers.expiration, receivedAt: request.receivedAt, details: &details) // 8
        try checkTopicSyntax(headers.topic, details: &details)                                  // 9
        let bearerToken = try checkCredentialsPresent(headers, auth: auth, details: &details)    // 10
        let topic = try resolveTopic(headers.topic, auth: auth, details: &details)              // 11
        let pushType = try effectivePushType(explicitType, topic: topic, details: &details)
        // The topic's bundle ID, nil if the topic lacks the push type's suffix (13 rejects it).
        let topicBundleID = pushType.bundleID(fromTopic: topic)
        try verifyProviderToken(
            headers.authorization, token: bearerToken, topic: topic, bundleID: topicBundleID, pushType: pushType,
            auth: &auth, details: &details)                                                      // 12
        let bundleID = try checkTopicAllowed(topic, bundleID: topicBundleID, pushType: pushType, auth: auth) // 13
        let device = try checkDevice(deviceToken, bundleID: bundleID, environment: auth.environment) // 14
        try checkPayload(request, pushType: pushType, inferType: explicitType == nil, details: &details) // 15
        try checkDeviceState(device)                                                            // 16
    }

    /// 0. A header list the transport stopped reading at the listener's limit: 431
    /// `RequestHeaderFieldsTooLarge`, before any APNs check, since the headers that would
    /// decide them may be the ones dropped. The path's device token, when it fitted, is
    /// still noted for the capture.
    private func checkHeaderListSize(_ request: PushRequest, details: inout PushDetails) throws(PushRejection) {
        guard let limit = request.oversizedHeaderListLimit else { return }
        if let token = try? DevicePath.token(in: request.path, raw: &details.rawDeviceToken) {
            details.deviceToken = token
        }
        let message = "the header list is over the listener's limit of \(limit) bytes (SETTINGS_MAX_HEADER_LIST_SIZE, "
            + "name + value + 32 per field); only the headers before the one that crossed it were kept"
        details.lintWarnings.append(PushLintWarning(code: PushLintCode.headerListTooLarge, message: message))
        throw PushRejection(.requestHeaderFieldsTooLarge, message)
    }

    /// 1. Only `POST`; APNs answers 405 even to `GET /`, so this precedes the path.
    private func checkMethod(_ method: String) throws(PushRejection) {
        guard method == Self.postMethod else {
            throw PushRejection(.methodNotAllowed, "only POST is allowed, found \(method)")
        }
    }

    /// 3. Any `apns-*` or `authorization` header sent twice. Apple does not say which
    /// repeats count; these are the ones whose meaning a repeat would make ambiguous.
    /// Unknown `apns-*` headers are noted as lints here too.
    func checkRepeatedHeaders(_ headers: PushHeaderFields, details: inout PushDetails) throws(PushRejection) {
        if let name = headers.repeatedName {
            throw PushRejection(.duplicateHeaders, "the \(name) header appears more than once")
        }
        for name in headers.unknownAPNsNames { Self.lintUnknownHeader(name, details: &details) }
        // The broadcast API's own headers mean nothing on a device push.
        guard !details.isBroadcast else { return }
        if headers.channelID != nil { Self.lintUnknownHeader(APNsHeaderName.channelID, details: &details) }
        if headers.requestID != nil { Self.lintUnknownHeader(APNsHeaderName.requestID, details: &details) }
    }

    private static func lintUnknownHeader(_ name: String, details: inout PushDetails) {
        details.lintWarnings.append(PushLintWarning(
            code: PushLintCode.unknownAPNsHeader, message: "APNs does not define \(name) for device pushes; it is ignored",
            path: name))
    }

    /// 4. `apns-id`, when sent, is 8-4-4-4-12 hex digits (`details.messageID` holds it if so).
    /// Apple documents lowercase; uppercase is accepted, as clients send both, with a lint.
    private func checkMessageID(_ id: String?, details: inout PushDetails) throws(PushRejection) {
        guard let id else { return }
        guard details.messageID != nil else {
            throw PushRejection(.badMessageId, "apns-id must be a UUID such as 123e4567-e89b-12d3-a456-426614174000")
        }
        // A canonical UUID's only letters are hex digits, so any uppercase letter is A-F.
        if id.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }) {
            details.lintWarnings.append(PushLintWarning(
                code: PushLintCode.apnsIDUppercase,
                message: "apns-id \(id) has uppercase hex digits; APNs documents a lowercase UUID (it is accepted)",
                path: APNsHeaderName.id))
        }
    }

    /// 5. `apns-push-type`, spelled exactly as Apple does (lowercase). Absent is decided
    /// at ``effectivePushType(_:topic:details:)``, once the topic is known.
    private func parsePushType(_ text: String?, details: inout PushDetails) throws(PushRejection) -> APNsPushType? {
        guard let text else { return nil }
        guard let type = APNsPushType(rawValue: text) else {
            throw PushRejection(
                .invalidPushType,
                "apns-push-type \(text) is not one of \(APNsPushType.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        details.pushType = type
        return type
    }

    /// 6. `apns-collapse-id` of at most 64 bytes (bytes, not characters).
    private func checkCollapseID(_ collapseID: String?, details: inout PushDetails) throws(PushRejection) {
        guard let collapseID else { return }
        details.collapseID = collapseID
        guard collapseID.utf8.count <= Self.maximumCollapseIDLength else {
            throw PushRejection(
                .badCollapseId, "apns-collapse-id is \(collapseID.utf8.count) bytes; at most \(Self.maximumCollapseIDLength) are allowed")
        }
    }

    /// 7. `apns-priority` of 1, 5 or 10 (10 when absent). Apple calls a background push at
    /// priority 10 "an error" without naming the reason; the priority is what is wrong, so
    /// by default it gets `BadPriority`. Apple documents 5 for background pushes and names
    /// no error for 1, so a background push at 1 is accepted with a lint.
    private func checkPriority(_ text: String?, pushType: APNsPushType?, details: inout PushDetails) throws(PushRejection) {
        var priority = APNsPriority.immediately
        if let text {
            guard let parsed = APNsPriority(headerValue: text) else {
                throw PushRejection(.badPriority, "apns-priority must be 10, 5 or 1, found \(text)")
            }
            priority = parsed
        }
        details.priority = priority
        if pushType == .liveactivity, priority == .prioritizingPowerSavings {
            // Apple documents 5 or 10 for Live Activities but names no error for 1.
            details.lintWarnings.append(PushLintWarning(
                code: PushLintCode.liveActivityPriority, message: "a Live Activity push should use apns-priority 5 or 10, not 1",
                path: APNsHeaderName.priority))
        }
        guard pushType == .background else { return }
        if priority == .immediately, settings.rejectsImmediateBackgroundPushes {
            throw PushRejection(.badPriority, "a background push must use apns-priority 5, not 10")
        }
        Self.lintBackgroundPriority(priority, inferred: false, details: &details)
    }

    /// A background push at priority 1 or 10, accepted: Apple names no error for 1, the
    /// settings accept 10, or the type was only inferred from the payload (step 15), where
    /// rejecting would rest on the mock's guess.
    private static func lintBackgroundPriority(_ priority: APNsPriority, inferred: Bool, details: inout PushDetails) {
        let push = inferred
            ? "without apns-push-type, a push whose aps has content-available and nothing to show is a background push; it"
            : "a background push"
        switch priority {
        case .prioritizingPowerSavings:
            details.lintWarnings.append(PushLintWarning(
                code: PushLintCode.backgroundPriority1,
                message: "\(push) should use apns-priority 5, not 1 (accepted; Apple names no error for it)",
                path: APNsHeaderName.priority))
        case .immediately:
            details.lintWarnings.append(PushLintWarning(
                code: PushLintCode.backgroundPriority, message: "\(push) must use apns-priority 5, not 10",
                path: APNsHeaderName.priority))
        case .consideringDevicePower:
            break
        }
    }

    /// 8. `apns-expiration` as whole UNIX seconds; 0 means "try once". A past time is
    /// accepted (APNs treats it like 0) with a lint.
    func checkExpiration(_ text: String?, receivedAt: Date, details: inout PushDetails) throws(PushRejection) {
        guard let text else { return }
        guard let seconds = Self.unsignedInteger(text) else {
            throw PushRejection(.badExpirationDate, "apns-expiration must be UNIX seconds or 0, found \(text)")
        }
        details.expiration = seconds
        if seconds != 0, Double(seconds) < receivedAt.timeIntervalSince1970.rounded(.down) {
            details.lintWarnings.append(PushLintWarning(
                code: PushLintCode.expirationPast,
                message: "apns-expiration \(seconds) is in the past; APNs tries once and does not store the push",
                path: APNsHeaderName.expiration))
        }
    }

    /// 9. A sent `apns-topic` must look like a topic at all; whether it is allowed waits
    /// until the sender is authenticated (13).
    private func checkTopicSyntax(_ topic: String?, details: inout PushDetails) throws(PushRejection) {
        guard let topic else { return }
        details.topic = topic
        guard TopicRules.isWellFormed(topic) else {
            throw PushRejection(.badTopic, "apns-topic \"\(topic)\" is not a bundle ID with an optional suffix")
        }
    }

    /// 10. A certificate connection needs an APNs provider certificate valid for this
    /// environment (failures here are fatal to the connection by default); a token
    /// connection needs a non-empty `authorization` header. Returns its token, read once
    /// here for the steps that follow; nil on a certificate connection.
    func checkCredentialsPresent(
        _ headers: PushHeaderFields, auth: ConnectionAuthState, details: inout PushDetails
    ) throws(PushRejection) -> Substring? {
        if let certificate = auth.certificate {
            if let problem = certificate.problem {
                throw PushRejection(.badCertificate, "the client certificate is not an APNs certificate: \(problem)")
            }
            guard certificate.environments.contains(auth.environment) else {
                throw PushRejection(
                    .badCertificateEnvironment,
                    "the client certificate is not valid for the \(auth.environment.rawValue) environment")
            }
            if headers.authorization != nil {
                details.lintWarnings.append(PushLintWarning(
                    code: PushLintCode.authorizationIgnored,
                    message: "APNs ignores authorization on a connection authenticated by certificate",
                    path: APNsHeaderName.authorization))
            }
            return nil
        }
        guard let authorization = headers.authorization, let token = BearerToken.token(in: authorization) else {
            throw PushRejection(.missingProviderToken, APNsProviderTokenError.missingProviderToken.message)
        }
        return token
    }

    /// 11. The topic: `apns-topic`, else the certificate's only topic. Token auth always
    /// needs the header; so does a certificate covering several topics.
    private func resolveTopic(_ header: String?, auth: ConnectionAuthState, details: inout PushDetails) throws(PushRejection) -> String {
        if let header { return header }
        guard let certificate = auth.certificate else {
            throw PushRejection(.missingTopic, "token authentication needs apns-topic")
        }
        guard let topic = certificate.defaultTopic else {
            throw PushRejection(.missingTopic, "the certificate covers several topics, so apns-topic is required")
        }
        details.topic = topic
        return topic
    }

    /// The push type rules apply to: the header's, else inferred from the topic's suffix
    /// (and refined to `background` from the payload in 15), with a lint.
    private func effectivePushType(_ explicit: APNsPushType?, topic: String, details: inout PushDetails) throws(PushRejection) -> APNsPushType {
        if let explicit { return explicit }
        guard settings.acceptsMissingPushType else {
            throw PushRejection(.invalidPushType, "apns-push-type is required")
        }
        let inferred = APNsPushType.implied(byTopic: topic)
        details.pushType = inferred
        details.lintWarnings.append(PushLintWarning(
            code: PushLintCode.pushTypeMissing,
            message: "no apns-push-type; treated as \(inferred) (watchOS requires the header, and APNs may delay or drop pushes without it)",
            path: APNsHeaderName.pushType))
        return inferred
    }

    /// 12. Provider-token rules, for token connections. Topic-specific keys are checked
    /// against the topic's bundle ID, since a key for an app covers all its push types.
    /// A rejected token's header and claims are still decoded into the details.
    ///
    /// - Parameter token: `authorization`'s token, as step 10 read it.
    func verifyProviderToken(
        _ authorization: String?, token: Substring?, topic: String, bundleID: String?, pushType: APNsPushType,
        auth: inout ConnectionAuthState, details: inout PushDetails
    ) throws(PushRejection) {
        guard auth.certificate == nil, let authorization else { return }
        if let token {
            details.tokenFingerprint = fingerprint(of: token, auth: &auth)
        }
        let keyTopic = pushType == .mdm ? topic : (bundleID ?? topic)
        do {
            let accepted = try tokenVerifier.verify(authorization: authorization, topic: keyTopic, connection: &auth.tokenState)
            auth.hasSeenValidToken = true
            // APNs binds a connection to its team's apps on the first authenticated push.
            if auth.boundApps == nil { auth.boundApps = storage }
            details.teamID = accepted.teamID
            details.keyID = accepted.keyID
            details.tokenHeader = .object(accepted.header.fields)
            details.tokenClaims = .object(accepted.claims.fields)
            for warning in accepted.lintWarnings { details.lintWarnings.append(PushLintWarning(warning)) }
        } catch {
            // The header and claims are decoded for the capture once validation gives up.
            throw PushRejection(APNsReason(error), error.message)
        }
    }

    /// 13. The topic must name an app the sender may push to, with the push type's suffix.
    /// Token auth: a registered bundle ID plus the suffix (`mdm` needs a certificate).
    /// Certificate auth: a topic the certificate covers, with the suffix (`location` needs
    /// a token). Returns the topic's bundle ID.
    private func checkTopicAllowed(
        _ topic: String, bundleID topicBundleID: String?, pushType: APNsPushType, auth: ConnectionAuthState
    ) throws(PushRejection) -> String {
        if let certificate = auth.certificate {
            guard pushType != .location else {
                throw PushRejection(.topicDisallowed, "location pushes need token authentication")
            }
            guard certificate.coveredTopics.contains(topic) else {
                throw PushRejection(.topicDisallowed, "the certificate does not cover topic \(topic)")
            }
            if pushType == .mdm { return topic }
            return try requireBundleID(topicBundleID, of: topic, pushType: pushType)
        }
        guard pushType != .mdm else {
            throw PushRejection(.topicDisallowed, "mdm pushes need the MDM certificate, not a provider token")
        }
        let bundleID = try requireBundleID(topicBundleID, of: topic, pushType: pushType)
        guard registry.bundleIDs.contains(bundleID) else {
            throw PushRejection(.topicDisallowed, "topic \(topic) is not served; " + Self.servedApps(registry.bundleIDs))
        }
        // Only after the registry was replaced (a new validator) can the apps differ from
        // the ones the connection was bound to: one comparison of references otherwise.
        if let bound = auth.boundApps, bound !== storage, !bound.registry.bundleIDs.contains(bundleID) {
            throw PushRejection(.topicDisallowed, "the app \(bundleID) was registered after this connection was bound to its "
                + "team's apps, on its first authenticated push; APNs serves it on a new connection")
        }
        return bundleID
    }

    /// "the mock serves com.example.app and its push-type topics", naming at most three apps.
    static func servedApps(_ bundleIDs: Set<String>) -> String {
        let sorted = bundleIDs.sorted()
        switch sorted.count {
        case 0: return "the mock serves no app: register one (docs/configuration.md)"
        case 1: return "the mock serves \(sorted[0]) and its push-type topics"
        case 2...3: return "the mock serves \(sorted.joined(separator: ", ")) and their push-type topics"
        default: return "the mock serves \(sorted.prefix(3).joined(separator: ", ")) and \(sorted.count - 3) more, with their push-type topics"
        }
    }

    /// `bundleID` (the topic's, without the push type's suffix), or why the topic has none.
    private func requireBundleID(_ bundleID: String?, of topic: String, pushType: APNsPushType) throws(PushRejection) -> String {
        guard let bundleID else {
            let suffix = pushType.topicSuffix
            throw PushRejection(
                .topicDisallowed,
                suffix.isEmpty
                    ? "\(pushType.withArticle) push goes to the bare bundle ID, not \(topic)"
                    : "\(pushType.withArticle) push needs a topic ending in \(suffix), found \(topic)")
        }
        return bundleID
    }

    /// 14. A listed token must belong to this environment and to the topic's app; an
    /// unlisted one is accepted only when the registry accepts unknown devices.
    private func checkDevice(_ token: DeviceToken, bundleID: String, environment: APNsEnvironment) throws(PushRejection) -> RegisteredDevice? {
        guard let device = registry.devices[token] else {
            guard registry.acceptsUnknownDevices else {
                throw PushRejection(.badDeviceToken, "the device token is not registered")
            }
            return nil
        }
        guard device.environment == environment else {
            throw PushRejection(
                .badDeviceToken, "the device token belongs to the \(device.environment.rawValue) environment")
        }
        guard device.bundleID == bundleID else {
            throw PushRejection(.deviceTokenNotForTopic, "the device token belongs to \(device.bundleID), not \(bundleID)")
        }
        return device
    }

    /// 15. A non-empty body within the push type's limit (5120 bytes for VoIP, else 4096),
    /// parsed once with StrictJSON. Not JSON, or not an object: `PayloadEmpty` by default
    /// (there is nothing APNs could deliver), or a lint when the settings accept it. Then
    /// the `aps` rules, which only lint.
    private func checkPayload(_ request: PushRequest, pushType: APNsPushType, inferType: Bool, details: inout PushDetails) throws(PushRejection) {
        if let limit = request.oversizedBodyLimit {
            throw PushRejection(
                .payloadTooLarge,
                "the body grew past \(limit) bytes and was not read to its end; \(pushType.withArticle) push allows \(pushType.maxPayloadSize)")
        }
        let body = request.body
        guard !body.isEmpty else { throw PushRejection(.payloadEmpty, "the body is empty") }
        guard body.count <= pushType.maxPayloadSize else {
            throw PushRejection(
                .payloadTooLarge, "the payload is \(body.count) bytes; \(pushType.withArticle) push allows \(pushType.maxPayloadSize)")
        }
        guard let outline = try objectOutline(of: body, details: &details) else { return }
        var pushType = pushType
        if inferType, pushType == .alert, Self.looksLikeBackground(aps: outline.memberFields) {
            pushType = .background
            details.pushType = .background
            if let priority = details.priority { Self.lintBackgroundPriority(priority, inferred: true, details: &details) }
        }
        let maximumDepth = settings.payloadNestingLimit
        PayloadRules.lint(outline, pushType: pushType, into: &details.lintWarnings) {
            try? JSONParser.parse(body, maximumDepth: maximumDepth)
        }
    }

    /// The payload's outline, with only `aps` built: the rest is checked as strictly but never
    /// read here, and the capture parses the whole payload only if someone asks for it. Nil
    /// once a body that is not a JSON object has been judged (``malformedPayload(_:_:details:)``).
    func objectOutline(of body: [UInt8], details: inout PushDetails) throws(PushRejection) -> JSONOutline? {
        let outline: JSONOutline
        do {
            outline = try JSONParser.outline(body, maximumDepth: settings.payloadNestingLimit, member: APNsPayloadKey.aps)
        } catch {
            try malformedPayload(PushLintCode.payloadNotJSON, "the payload is not JSON: \(error)", details: &details)
            return nil
        }
        details.setPayload(parsedFrom: body, maximumDepth: settings.payloadNestingLimit)
        guard outline.isObject else {
            try malformedPayload(PushLintCode.payloadNotObject, "the payload must be a JSON object, found \(outline.typeName)", details: &details)
            return nil
        }
        return outline
    }

    func malformedPayload(_ code: String, _ message: String, details: inout PushDetails) throws(PushRejection) {
        details.lintWarnings.append(PushLintWarning(code: code, message: message))
        if settings.rejectsMalformedPayloads { throw PushRejection(.payloadEmpty, message) }
    }

    /// 16. A device that uninstalled the app answers 410 `Unregistered` with the time in
    /// milliseconds; an expired token answers 410 `ExpiredToken`.
    private func checkDeviceState(_ device: RegisteredDevice?) throws(PushRejection) {
        guard let device else { return }
        switch device.state {
        case .active:
            return
        case .unregistered(let since):
            let milliseconds = EpochMilliseconds.of(since, rounding: .down)
            throw PushRejection(.unregistered, "the device token is no longer active for the topic", timestamp: milliseconds)
        case .expired:
            throw PushRejection(.expiredToken, "the device token has expired")
        }
    }

    // MARK: Helpers

    /// Whether an untyped payload is a background push: `content-available` without
    /// anything to show.
    private static func looksLikeBackground(aps: JSONShallowObject?) -> Bool {
        guard let aps, aps[APNsPayloadKey.contentAvailable] != nil else { return false }
        return aps[APNsPayloadKey.alert] == nil && aps[APNsPayloadKey.sound] == nil && aps[APNsPayloadKey.badge] == nil
    }

    /// Decimal digits only (no sign, no space), fitting in Int64.
    static func unsignedInteger(_ text: String) -> Int64? {
        guard !text.utf8.isEmpty, text.utf8.count <= 19 else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (product, overflow) = value.multipliedReportingOverflow(by: 10)
            guard !overflow else { return nil }
            let (sum, overflowAdd) = product.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflowAdd else { return nil }
            value = sum
        }
        return value
    }

    /// The token's fingerprint, hashed once per token per connection.
    private func fingerprint(of token: Substring, auth: inout ConnectionAuthState) -> String {
        if let known = auth.fingerprint, let previous = auth.fingerprintedToken, previous == token { return known }
        let text = String(token)
        let fingerprint = TokenFingerprint.of(text)
        auth.fingerprintedToken = text
        auth.fingerprint = fingerprint
        return fingerprint
    }
}
