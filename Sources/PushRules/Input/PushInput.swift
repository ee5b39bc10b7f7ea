import StrictJSON

/// One push as the rules see it: its headers, its payload and, for a captured push, the
/// answer it got.
///
/// ```swift
/// let push = PushInput(headers: PushHeaders(pushType: "alert", topic: "com.example.app", priority: 10),
///                      payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8))
/// let result = RuleSet.profiles([.apple]).check(push)
/// ```
public struct PushInput: Sendable, Hashable {
    /// The request headers.
    public var headers: PushHeaders
    /// The body length in bytes, which the size limit applies to.
    public var payloadSize: Int
    /// The body as JSON; nil when it is not JSON (see ``payloadError``).
    public var payload: JSONValue?
    /// Why the body is not JSON, when it is not.
    public var payloadError: String?
    /// The answer, for a captured push.
    public var result: PushResult?
    /// When the push was sent, in UNIX seconds: the time an expiration is compared with.
    /// Nil means "now".
    public var sentAt: Int64?
    /// Where it came from.
    public var source: PushSource
    /// For a captured request that never was a push (another method than POST, a path
    /// other than `/3/device/TOKEN`): the request line, such as `GET /3/device/…`. Only the
    /// rules whose scope ``RuleScope/includesNonPushes`` judge it.
    public var nonPushRequest: String?

    /// A push whose payload is already parsed (as in a capture record).
    public init(
        headers: PushHeaders, payloadSize: Int, payload: JSONValue?, payloadError: String? = nil,
        result: PushResult? = nil, sentAt: Int64? = nil, source: PushSource = PushSource(name: "-")
    ) {
        self.headers = headers
        self.payloadSize = payloadSize
        self.payload = payload
        self.payloadError = payload == nil ? (payloadError ?? "the payload is not JSON") : nil
        self.result = result
        self.sentAt = sentAt
        self.source = source
    }

    /// A push from raw body bytes, parsed here with the strict parser.
    public init(
        headers: PushHeaders, payload bytes: [UInt8], result: PushResult? = nil, sentAt: Int64? = nil,
        source: PushSource = PushSource(name: "-")
    ) {
        var parsed: JSONValue?
        var problem: String?
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            problem = "the payload is not JSON: \(error)"
        }
        self.init(headers: headers, payloadSize: bytes.count, payload: parsed, payloadError: problem, result: result,
                  sentAt: sentAt, source: source)
    }

    /// The payload's top-level object, or nil when the payload is anything else.
    public var payloadObject: [String: JSONValue]? {
        if case .object(let members) = payload { return members }
        return nil
    }
}
