/// The stable `code`s of ``PushLintWarning``s that validation attaches, each defined once.
///
/// Scripts match on these; they never change meaning. Each names what it is about:
/// `header.*` request headers, `token.*` the provider token, `payload.*` the body as a
/// whole, `aps.*` the `aps` dictionary.
public enum PushLintCode {
    // MARK: Headers
    /// No `apns-push-type`; the mock inferred one (Apple requires it on watchOS).
    public static let pushTypeMissing = "header.push-type-missing"
    /// `apns-expiration` is in the past (and not 0): APNs tries once and stores nothing.
    public static let expirationPast = "header.expiration-past"
    /// An `apns-*` header the device-push API does not define, such as a misspelling.
    public static let unknownAPNsHeader = "header.unknown-apns-header"
    /// `authorization` on a certificate connection, which APNs ignores.
    public static let authorizationIgnored = "header.authorization-ignored"
    /// A background push at priority 10, when the settings accept it.
    public static let backgroundPriority = "header.background-priority"
    /// A background push at priority 1; Apple documents 5 and names no error for 1.
    public static let backgroundPriority1 = "header.background-priority-1"
    /// A Live Activity push at priority 1; Apple documents 5 or 10.
    public static let liveActivityPriority = "header.liveactivity-priority"
    /// `apns-id` with uppercase hex digits; Apple documents a lowercase UUID.
    public static let apnsIDUppercase = "header.apns-id-uppercase"
    /// The header list went past the listener's limit: explains the 431, and says that the
    /// capture holds only the headers that fit.
    public static let headerListTooLarge = "header.list-too-large"

    // MARK: Provider token
    /// `iat` was a numeric string.
    public static let tokenIssuedAtString = "token.iat-string"
    /// `iat` had a fraction.
    public static let tokenIssuedAtFractional = "token.iat-fractional"
    /// `iat` was slightly ahead of the server clock.
    public static let tokenIssuedAtFuture = "token.iat-future"
    /// The token header carried `typ`.
    public static let tokenTypeHeader = "token.typ-header"
    /// The token header carried members other than `alg`, `kid`, `typ`.
    public static let tokenUnexpectedHeader = "token.unexpected-header"
    /// The claims carried members other than `iss`, `iat`.
    public static let tokenUnexpectedClaim = "token.unexpected-claim"

    // MARK: Payload
    /// The body is not JSON.
    public static let payloadNotJSON = "payload.not-json"
    /// The body is JSON but not an object.
    public static let payloadNotObject = "payload.not-object"

    // MARK: aps
    /// The payload has no `aps` although the push type needs one.
    public static let apsMissing = "aps.missing"
    /// `aps` is not an object.
    public static let apsNotObject = "aps.not-object"
    /// A key APNs does not define, inside `aps` or its `alert`; APNs ignores it.
    public static let apsUnknownKey = "aps.unknown-key"
    /// `badge` is not a whole number.
    public static let apsBadgeType = "aps.badge-type"
    /// A known `aps` key with the wrong JSON type.
    public static let apsFieldType = "aps.field-type"
    /// A known `aps` key with the right type but a value APNs does not define.
    public static let apsFieldValue = "aps.field-value"
    /// An alert push with no alert, sound or badge: nothing to show.
    public static let apsAlertNothingToShow = "aps.alert-nothing-to-show"
    /// A background push with alert, sound or badge.
    public static let apsBackgroundHasAlert = "aps.background-has-alert"
    /// A background push without `content-available: 1`.
    public static let apsBackgroundMissingContentAvailable = "aps.background-missing-content-available"
    /// A Live Activity push missing a key its event requires.
    public static let apsLiveActivityMissingField = "aps.liveactivity-missing-field"
    /// A Live Activity `timestamp`, `stale-date` or `dismissal-date` in milliseconds, where
    /// Apple documents seconds.
    public static let apsLiveActivityDateUnit = "aps.liveactivity-date-unit"
    /// `input-push-token` or `input-push-channel` on an event other than start, both at
    /// once, or a channel id that is not base64.
    public static let apsLiveActivityInputPush = "aps.liveactivity-input-push"
    /// A broadcast whose event is start: broadcasts cannot start an activity.
    public static let broadcastStartEvent = "aps.liveactivity-broadcast-start"
}
