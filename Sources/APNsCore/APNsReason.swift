/// A `reason` from an APNs error response, with the HTTP status APNs pairs it with.
///
/// This is the one reason type of the suite: the mock answers with it, the client and
/// gateway decode into it, and push-inspect reports it. Known reasons are spelled exactly
/// as on the wire; a reason this version does not know survives as `unknown`.
///
/// ```swift
/// let reason = APNsReason(wireValue: "BadDeviceToken")   // .badDeviceToken
/// reason.status                                          // 400
/// ```
public enum APNsReason: Hashable, Sendable, CustomStringConvertible {
    case badCollapseId
    case badDeviceToken
    case badExpirationDate
    case badMessageId
    case badPriority
    case badTopic
    case deviceTokenNotForTopic
    case duplicateHeaders
    case idleTimeout
    case invalidPushType
    case missingDeviceToken
    case missingTopic
    case payloadEmpty
    case topicDisallowed
    case badCertificate
    case badCertificateEnvironment
    case expiredProviderToken
    case forbidden
    case invalidProviderToken
    case missingProviderToken
    case unrelatedKeyIdInToken
    case badEnvironmentKeyIdInToken
    case badPath
    case methodNotAllowed
    case expiredToken
    case unregistered
    case payloadTooLarge
    case tooManyProviderTokenUpdates
    case tooManyRequests
    case internalServerError
    case serviceUnavailable
    case shutdown
    // The broadcast and channel management APIs' own reasons (Apple's broadcast error table).
    case featureNotEnabled
    case missingChannelId
    case badChannelId
    case channelNotRegistered
    case badRequestParams
    case badRequestPayload
    case missingPushType
    case cannotCreateChannelConfig
    case topicMismatch
    /// A reason this version does not know, kept verbatim.
    case unknown(String)

    /// Every reason in Apple's tables, in the tables' order: device pushes, then the
    /// broadcast and channel management APIs' own.
    public static let allKnown: [APNsReason] = table.map(\.reason)

    private static let table: [(reason: APNsReason, wire: String, status: Int)] = [
        (.badCollapseId, "BadCollapseId", 400),
        (.badDeviceToken, "BadDeviceToken", 400),
        (.badExpirationDate, "BadExpirationDate", 400),
        (.badMessageId, "BadMessageId", 400),
        (.badPriority, "BadPriority", 400),
        (.badTopic, "BadTopic", 400),
        (.deviceTokenNotForTopic, "DeviceTokenNotForTopic", 400),
        (.duplicateHeaders, "DuplicateHeaders", 400),
        (.idleTimeout, "IdleTimeout", 400),
        (.invalidPushType, "InvalidPushType", 400),
        (.missingDeviceToken, "MissingDeviceToken", 400),
        (.missingTopic, "MissingTopic", 400),
        (.payloadEmpty, "PayloadEmpty", 400),
        (.topicDisallowed, "TopicDisallowed", 400),
        (.badCertificate, "BadCertificate", 403),
        (.badCertificateEnvironment, "BadCertificateEnvironment", 403),
        (.expiredProviderToken, "ExpiredProviderToken", 403),
        (.forbidden, "Forbidden", 403),
        (.invalidProviderToken, "InvalidProviderToken", 403),
        (.missingProviderToken, "MissingProviderToken", 403),
        (.unrelatedKeyIdInToken, "UnrelatedKeyIdInToken", 403),
        (.badEnvironmentKeyIdInToken, "BadEnvironmentKeyIdInToken", 403),
        (.badPath, "BadPath", 404),
        (.methodNotAllowed, "MethodNotAllowed", 405),
        (.expiredToken, "ExpiredToken", 410),
        (.unregistered, "Unregistered", 410),
        (.payloadTooLarge, "PayloadTooLarge", 413),
        (.tooManyProviderTokenUpdates, "TooManyProviderTokenUpdates", 429),
        (.tooManyRequests, "TooManyRequests", 429),
        (.internalServerError, "InternalServerError", 500),
        (.serviceUnavailable, "ServiceUnavailable", 503),
        (.shutdown, "Shutdown", 503),
        (.featureNotEnabled, "FeatureNotEnabled", 400),
        (.missingChannelId, "MissingChannelId", 400),
        (.badChannelId, "BadChannelId", 400),
        (.channelNotRegistered, "ChannelNotRegistered", 400),
        (.badRequestParams, "BadRequestParams", 400),
        (.badRequestPayload, "BadRequestPayload", 400),
        (.missingPushType, "MissingPushType", 400),
        (.cannotCreateChannelConfig, "CannotCreateChannelConfig", 400),
        (.topicMismatch, "TopicMismatch", 403),
    ]

    private static let byWire: [String: (reason: APNsReason, status: Int)] = Dictionary(
        uniqueKeysWithValues: table.map { ($0.wire, ($0.reason, $0.status)) })

    /// Decodes a wire `reason`; unfamiliar strings become `.unknown`.
    public init(wireValue: String) {
        self = Self.byWire[wireValue]?.reason ?? .unknown(wireValue)
    }

    /// The exact string APNs puts in `{"reason":"..."}`.
    public var wireValue: String {
        if case let .unknown(value) = self { return value }
        return Self.table.first { $0.reason == self }?.wire ?? ""
    }

    /// The HTTP status APNs answers this reason with; nil for unknown reasons.
    public var status: Int? {
        if case .unknown = self { return nil }
        return Self.table.first { $0.reason == self }?.status
    }

    /// Whether Apple allows sending the same push again: server errors and rate limits.
    ///
    /// Apple says never to retry BadDeviceToken, DeviceTokenNotForTopic, Forbidden,
    /// ExpiredToken, Unregistered or PayloadTooLarge; those, like every other 4xx, are final.
    public var isRetryable: Bool {
        switch self {
        case .tooManyRequests, .internalServerError, .serviceUnavailable, .shutdown: true
        default: false
        }
    }

    /// True for the reasons APNs answers with 410 and a `timestamp`.
    public var isGone: Bool { status == 410 }

    public var description: String { wireValue }
}
