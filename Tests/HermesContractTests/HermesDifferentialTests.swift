import HermesContract
import Testing

/// The byte-level parsing and writing hold to the plain reference implementation
/// (Support/ReferenceHermesContract.swift): the same requests accepted, the same errors with
/// the same messages, the same canonical bytes and payloads, on edge cases of every kind.
@Suite struct HermesDifferentialTests {
    static let token = String(repeating: "ab", count: 32)
    static let hmac = String(repeating: "0f", count: 32)
    static let base: [(String, String)] = [
        ("device_token", #""\#(token)""#), ("apns_env", #""sandbox""#), ("type", #""approval""#),
        ("session_id", #""20261130_154126_a1b2c3""#), ("title", #""Approval needed""#),
        ("body", #""Hermes needs your approval""#), ("thread_id", #""20261130_154126_a1b2c3""#), ("hmac", #""\#(hmac)""#),
    ]

    static func body(_ members: [(String, String)]) -> String {
        "{" + members.map { #""\#($0.0)":\#($0.1)"# }.joined(separator: ",") + "}"
    }

    /// The base body with `field`'s raw JSON value replaced, or the field left out (nil).
    static func replacing(_ field: String, with value: String?) -> String {
        body(base.compactMap { $0.0 == field ? value.map { (field, $0) } : $0 })
    }

    static let values: [String?] = [
        nil, "null", "1", "true", "{}", #"["x"]"#, #""""#, #"" ""#, #""x""#,
        #""\#(String(repeating: "a", count: 300))""#, #""caf\#u{e9}""#, #""\u0061""#, #""a\"b""#, #""a\\b""#,
        "\"a\u{7f}\"", #""\u212A""#, "\"\u{212A}\"", #""\ud83d\ude00""#,
    ]

    static var bodies: [String] {
        var bodies = [body(base), body(base.filter { $0.0 != "thread_id" }), replacing("hmac", with: nil)]
        for field in base.map(\.0) + ["capability"] {
            for value in values { bodies.append(replacing(field, with: value)) }
        }
        let withCapability = base + [("capability", #""cap""#)]
        bodies += [
            body(withCapability), body(withCapability.filter { $0.0 != "hmac" }),
            body(base.filter { $0.0 != "hmac" } + [("capability", #""\#(String(repeating: "c", count: 512))""#)]),
            body(base.filter { $0.0 != "hmac" } + [("capability", #""\#(String(repeating: "c", count: 513))""#)]),
            body(base + [("extra", #""ignored""#), ("nested", #"{"a":[1,2]}"#)]),
            body(base + [("type", #""clarify""#)]),                              // duplicate key
            " \n" + body(base) + "\t ",                                            // whitespace around
            body(base).replacing(":", with: " : "),
            replacing("device_token", with: #""\#(token.uppercased())""#),
            replacing("device_token", with: #""\#(String(repeating: "a", count: 256))""#),
            replacing("device_token", with: #""\#(String(repeating: "a", count: 258))""#),
            replacing("device_token", with: #""abc""#), replacing("device_token", with: #""abgg""#),
            replacing("device_token", with: #""\u0061b""#),
            replacing("apns_env", with: #""production""#), replacing("apns_env", with: #""Sandbox""#),
            replacing("apns_env", with: #""\u0073andbox""#), replacing("apns_env", with: #""sandbox ""#),
            replacing("type", with: #""error""#), replacing("type", with: #""APPROVAL""#),
            replacing("session_id", with: #""-a""#), replacing("session_id", with: #""a/b""#),
            replacing("session_id", with: #""\#(String(repeating: "s", count: 128))""#),
            replacing("session_id", with: #""\#(String(repeating: "s", count: 129))""#),
            replacing("session_id", with: #""a:b.c-d_e""#), replacing("session_id", with: #""K1""#),
            body(base.map { $0.0 == "session_id" ? ($0.0, #""K1""#) : $0.0 == "thread_id" ? ($0.0, "\"\u{212A}1\"") : $0 }),
            body(base.map { $0.0 == "session_id" ? ($0.0, #""K1""#) : $0.0 == "thread_id" ? ($0.0, #""\u004b1""#) : $0 }),
            replacing("thread_id", with: #""\u0032\u0030261130_154126_a1b2c3""#),
            replacing("title", with: #""Approval needed ""#), replacing("title", with: #""Input needed""#),
            replacing("body", with: #""Hermes needs your approval\u0000""#),
            replacing("hmac", with: #""\#(hmac.uppercased())""#), replacing("hmac", with: #""\#(hmac.dropLast())""#),
            replacing("hmac", with: #""\#(hmac)0""#), replacing("hmac", with: #""\u0030\#(hmac.dropFirst())""#),
            "", "[]", "{", #"{"device_token":"#, "null", #""x""#, "{}",
            #"{"pad":""# + String(repeating: "a", count: 5_000) + #""}"#,
        ]
        return bodies
    }

    @Test(arguments: bodies)
    func parsingMatchesTheReference(body: String) {
        let bytes = Array(body.utf8)
        let expected = Result { () throws(HermesRequestError) in try ReferenceHermesContract.parse(bytes) }
        let actual = Result { () throws(HermesRequestError) in try HermesPushRequest(body: bytes) }
        #expect(actual == expected, "\(body)")
        if case .success(let request) = actual {
            #expect(request.canonicalBytes == ReferenceHermesContract.canonicalBytes(request))
        }
    }

    /// Bytes either side of each hex range, and non-ASCII, at positions in the first and
    /// last eight-byte word and in the tail of 64- and 66-digit tokens and HMACs.
    static var hexBodies: [String] {
        let near = ["/", ":", "@", "A", "F", "G", "`", "g", #"\u0010"#, #"\u0019"#, "~", "\u{e9}"]
        var bodies: [String] = []
        for (length, position) in [(64, 0), (64, 7), (64, 8), (64, 35), (64, 63), (66, 64), (66, 65)] {
            for byte in near {
                let text = String(repeating: "a", count: position) + byte + String(repeating: "b", count: length - 1 - position)
                bodies.append(replacing("device_token", with: "\"\(text)\""))
                bodies.append(replacing("hmac", with: "\"\(text)\""))
            }
        }
        return bodies
    }

    @Test(arguments: hexBodies)
    func hexChecksMatchTheReference(body: String) {
        parsingMatchesTheReference(body: body)
    }

    static let freeValues: [String] = [
        "", "sess-1", "Sessión \"x\"", "back\\slash", "tab\there", "nl\ncr\r", "\u{0}\u{1}\u{8}\u{c}\u{1f}", "\u{7f}",
        "emoji 😀", "\u{212A}", String(repeating: "long value ", count: 40), "ends with quote\"", "\"",
    ]

    @Test(arguments: freeValues)
    func canonicalBytesMatchTheReference(value: String) {
        for type in HermesPushType.allCases {
            var request = HermesPushRequest(deviceToken: value, environment: .production, type: type, sessionID: value)
            #expect(request.canonicalBytes == ReferenceHermesContract.canonicalBytes(request))
            for threadID in [nil, "", value, "other"] as [String?] {
                request.threadID = threadID
                request.title = value
                #expect(request.canonicalBytes == ReferenceHermesContract.canonicalBytes(request), "\(threadID ?? "nil")")
                request.title = type.title
                request.body = value
                #expect(request.canonicalBytes == ReferenceHermesContract.canonicalBytes(request))
            }
        }
    }

    @Test(arguments: freeValues)
    func payloadsMatchTheReference(sessionID: String) {
        for type in HermesPushType.allCases {
            var notification = HermesNotification(type: type, sessionID: sessionID)
            #expect(notification.payload() == ReferenceHermesContract.payload(notification))
            for badge in [nil, 0, 1, 9, 10, 99, 12_345, -1, -10, Int.max, Int.min] as [Int?] {
                notification.badge = badge
                #expect(notification.payload() == ReferenceHermesContract.payload(notification), "\(badge ?? -999)")
            }
        }
    }

    @Test func categoriesAreTheUppercasedTypes() {
        for type in HermesPushType.allCases {
            #expect(type.category == "HERMES_" + type.rawValue.uppercased())
            #expect(HermesPushType(category: type.category) == type)
        }
    }

    @Test func sessionIDsMatchTheReferenceRule() {
        var candidates = ["", "a", "0", "A", "-", ".a", "_a", ":a", "a-", "a.b:c_d-e", "a b", "a/b", "é", "aé",
                          String(repeating: "a", count: 128), String(repeating: "a", count: 129), "a\u{0}"]
        candidates += (0...127).map { "a" + String(UnicodeScalar(UInt8($0))) } + (0...127).map { String(UnicodeScalar(UInt8($0))) }
        for candidate in candidates {
            #expect(HermesSessionID.isValid(candidate) == ReferenceHermesContract.isValidSessionID(candidate), "\(candidate.debugDescription)")
            #expect(HermesSessionID.isValid(candidate.dropFirst(0)) == ReferenceHermesContract.isValidSessionID(candidate))
        }
    }
}
