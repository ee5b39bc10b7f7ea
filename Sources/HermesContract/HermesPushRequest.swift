import APNsCore
import StrictJSON

/// The body of `POST …/push`, plugin to gateway (contract §2.1).
///
/// The gateway authorizes it by `hmac` (shared secret over ``canonicalBytes``) or by
/// `capability` (issued by `/register` for the device token), then builds the APNs
/// request from the fixed tables of ``HermesPushType``; nothing else from the body
/// reaches APNs.
///
/// ```swift
/// var request = HermesPushRequest(deviceToken: token, environment: .sandbox,
///                                 type: .approval, sessionID: "sess-1")
/// request.hmac = hexHMAC(secret, request.canonicalBytes)
/// let body = request.encodedBody()
/// ```
public struct HermesPushRequest: Sendable, Hashable {
    /// The contract's body limit, and the gateway's default one; real requests are about
    /// 400 bytes. A gateway configured for more passes its own limit to ``init(body:maximumBodySize:)``.
    public static let maximumBodySize = 4_096
    /// The longest `capability` the gateway compares; a longer one was never issued and is
    /// refused as invalid (403), as an empty one is.
    public static let maximumCapabilityLength = 512
    /// How many hex digits a `device_token` may have (an even number of them): at least 64
    /// (32 bytes) and at most 256.
    ///
    /// Apple says to assume nothing about a token's size, and tokens have grown: 32 bytes
    /// for years, 48, 54 and 80 bytes (96, 108, 160 digits) reported since. None shorter
    /// than 32 bytes has been seen, so the floor admits every token APNs issues while a
    /// truncated or made-up one (`"abcd"`) is refused here, naming the rule, instead of
    /// costing an APNs round trip for a `BadDeviceToken`. The ceiling bounds the work per
    /// request with room for tokens to grow further.
    public static let deviceTokenHexDigits = 64...256

    /// The APNs device token, lowercase hex as the plugin registered it.
    public var deviceToken: String
    /// Which APNs environment the token belongs to.
    public var environment: HermesAPNsEnvironment
    /// Which event this is.
    public var type: HermesPushType
    /// The session the push is about; the only free-form value that leaves the agent.
    public var sessionID: String
    /// The alert title; always `type.title`.
    public var title: String
    /// The alert body; always `type.body`.
    public var body: String
    /// `thread_id`: the session id again, or nil when the plugin leaves it out.
    public var threadID: String?
    /// Lowercase hex HMAC-SHA256 of ``canonicalBytes`` under the shared secret. Parsed as
    /// sent, whatever its form: one that is not 64 lowercase hex digits is a bad hmac, which
    /// the gateway refuses as unauthorized (403, contract §2.3), not as an invalid request.
    public var hmac: String?
    /// A capability the gateway issued for ``deviceToken``.
    public var capability: String?

    /// What a `device_token` must be, for error messages.
    public static let deviceTokenRule =
        "must be an even number of hex digits, \(deviceTokenHexDigits.lowerBound) to \(deviceTokenHexDigits.upperBound)"

    /// `text` as a device token the contract accepts (``deviceTokenHexDigits``, any case),
    /// or nil: what `/push` and `/register` accept, and so all an agent should store.
    public static func deviceToken(_ text: String) -> DeviceToken? {
        deviceTokenHexDigits.contains(text.utf8.count) ? DeviceToken(text) : nil
    }

    /// A request for `type` with the contract's copy and `thread_id` = `sessionID`.
    public init(deviceToken: String, environment: HermesAPNsEnvironment, type: HermesPushType, sessionID: String) {
        self.deviceToken = deviceToken
        self.environment = environment
        self.type = type
        self.sessionID = sessionID
        self.title = type.title
        self.body = type.body
        self.threadID = sessionID
    }

    /// The bytes the HMAC covers: compact JSON of `device_token, apns_env, type,
    /// session_id, title, body` in that order, then `thread_id` only when non-empty —
    /// byte-identical to JavaScript's `JSON.stringify` of that object.
    public var canonicalBytes: [UInt8] {
        // The gateway checks an HMAC per push: written in one exactly sized array when no
        // value needs an escape (always, for a request it accepted), else by `JSONWriter`.
        let threadID = threadID.flatMap { $0.isEmpty ? nil : $0 }
        let plain = HermesJSONOutput.compact { output in
            output.append(#"{"device_token":"#)
            output.appendQuoted(deviceToken)
            output.append(#","apns_env":"#)
            output.appendQuoted(environment.rawValue)
            output.append(#","type":"#)
            output.appendQuoted(type.rawValue)
            output.append(#","session_id":"#)
            output.appendQuoted(sessionID)
            output.append(#","title":"#)
            output.appendQuoted(title)
            output.append(#","body":"#)
            output.appendQuoted(body)
            if let threadID {
                output.append(#","thread_id":"#)
                output.appendQuoted(threadID)
            }
            output.append(UInt8(ascii: "}"))
        }
        if let plain { return plain }
        var output: [UInt8] = []
        JSONWriter.writeObject(canonicalMembers, into: &output)
        return output
    }

    /// The request body as the plugin sends it: the canonical members, then `hmac` and
    /// `capability` when set.
    public func encodedBody() -> [UInt8] {
        var members = canonicalMembers
        if let hmac { members.append(("hmac", .string(hmac))) }
        if let capability { members.append(("capability", .string(capability))) }
        var output: [UInt8] = []
        JSONWriter.writeObject(members, into: &output)
        return output
    }

    private var canonicalMembers: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = [
            ("device_token", .string(deviceToken)),
            ("apns_env", .string(environment.rawValue)),
            ("type", .string(type.rawValue)),
            ("session_id", .string(sessionID)),
            ("title", .string(title)),
            ("body", .string(body)),
        ]
        if let threadID, !threadID.isEmpty { members.append(("thread_id", .string(threadID))) }
        return members
    }

    /// Parses and strictly validates a request body.
    ///
    /// Every field must be a string; the device token an even number of hex digits within
    /// ``deviceTokenHexDigits``; `apns_env` and `type` from
    /// their enums; `session_id` must match ``HermesSessionID``; `title` and `body` must be
    /// the type's fixed copy (anything else would be content leaving the agent);
    /// `thread_id`, when present and non-empty, must equal `session_id`; `hmac` may be any
    /// string (its form is the authorization's to judge: a malformed one is a bad hmac, 403),
    /// and so may `capability`. Unknown members are ignored: they never reach APNs.
    ///
    /// - Parameters:
    ///   - bytes: the request body.
    ///   - maximumBodySize: the largest body accepted; a gateway passes the limit it was
    ///     configured with, so the one its transport enforces is the one that applies.
    /// - Throws: ``HermesRequestError`` naming the first member that breaks the contract.
    public init(body bytes: [UInt8], maximumBodySize: Int = HermesPushRequest.maximumBodySize) throws(HermesRequestError) {
        guard bytes.count <= maximumBodySize else {
            throw .invalidValue(field: "body", reason: "is larger than \(maximumBodySize) bytes")
        }
        // Values are checked in their bytes (the gateway reads one body per push), and a
        // String is made only of what the request keeps as sent; the fixed ones (`apns_env`,
        // `type`, `title`, `body`, a `thread_id` equal to `session_id`) reuse existing strings.
        let object = try HermesFields(bytes: bytes)
        // Kept as sent, not lowercased: the HMAC was computed over the sender's spelling.
        deviceToken = try object.required("device_token", unless: Self.deviceTokenRule) {
            Self.deviceTokenHexDigits.contains($0.count) && HexDigits.areHex($0, allowingUppercase: true) && $0.count % 2 == 0
                ? String(decoding: $0, as: UTF8.self) : nil
        }
        environment = try object.required("apns_env", unless: #"must be "sandbox" or "production""#, HermesText.enumCase)
        let type: HermesPushType = try object.required("type", unless: "must be one of approval, clarify, complete, error", HermesText.enumCase)
        self.type = type
        let sessionID = try object.required("session_id", unless: "must match \(HermesSessionID.pattern)") {
            HermesSessionID.isValid(utf8: $0) ? String(decoding: $0, as: UTF8.self) : nil
        }
        self.sessionID = sessionID
        title = try object.required("title", unless: "must be \"\(type.title)\" for type \(type.rawValue)") {
            HermesText.string($0, equalTo: type.title)
        }
        body = try object.required("body", unless: "must be \"\(type.body)\" for type \(type.rawValue)") {
            HermesText.string($0, equalTo: type.body)
        }
        threadID = try object.optional("thread_id", unless: "must equal session_id") {
            $0.isEmpty ? "" : HermesText.string($0, equalTo: sessionID)
        }
        // Any string, empty and uppercase included: the contract answers a bad hmac with 403
        // (the authorizer's `invalid_hmac`), and 400 would make the plugin give up silently.
        hmac = try object.optional("hmac", unless: "must be a string") { String(decoding: $0, as: UTF8.self) }
        // Any string, as hmac: an empty or oversized capability is one the gateway never
        // issued, refused with 403 invalid_capability, so the plugin registers again.
        capability = try object.optional("capability", unless: "must be a string") { String(decoding: $0, as: UTF8.self) }
        if hmac == nil, capability == nil { throw .missingAuthorization }
    }
}
