import APNsCore
import HermesContract
import JWTVerify
import Testing

@Suite struct HermesPushRequestTests {
    static let token = String(repeating: "ab", count: 32)

    private func hexHMAC(_ secret: String, _ message: [UInt8]) throws -> String {
        try HMACSHA256.authenticationCode(for: message, using: Array(secret.utf8))
            .map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined()
    }

    @Test func canonicalStringMatchesThePluginsFirstVector() throws {
        let request = HermesPushRequest(deviceToken: Self.token, environment: .sandbox, type: .approval, sessionID: "sess-1")
        let expected = #"{"device_token":"\#(Self.token)","apns_env":"sandbox","type":"approval","session_id":"sess-1","title":"Approval needed","body":"Hermes needs your approval","thread_id":"sess-1"}"#
        #expect(String(decoding: request.canonicalBytes, as: UTF8.self) == expected)
        #expect(try hexHMAC("s", request.canonicalBytes) == "af1a8dbc43a586d4a0f8e6813e5afe46f869b9d48faaa90f2e609500121972d9")
    }

    @Test func canonicalStringMatchesTheSecondVectorWithRawUTF8AndEscapes() throws {
        // The session id breaks our session-id pattern; the canonical string must still be
        // exactly what the plugin signs, so build it field by field.
        var request = HermesPushRequest(deviceToken: Self.token, environment: .production, type: .error, sessionID: "Sessión \"x\"")
        request.threadID = nil
        let expected = #"{"device_token":"\#(Self.token)","apns_env":"production","type":"error","session_id":"Sessión \"x\"","title":"Hermes hit an error","body":"Hermes ran into a problem"}"#
        #expect(String(decoding: request.canonicalBytes, as: UTF8.self) == expected)
        #expect(try hexHMAC("test-secret", request.canonicalBytes) == "a67b01338ba397048bdad93a7c00e9f77b1f72bf602d3a08ff23565b024421ed")
    }

    @Test func emptyThreadIDIsLeftOutOfTheCanonicalString() {
        var request = HermesPushRequest(deviceToken: Self.token, environment: .sandbox, type: .clarify, sessionID: "s1")
        request.threadID = ""
        #expect(!String(decoding: request.canonicalBytes, as: UTF8.self).contains("thread_id"))
    }

    @Test func bodyRoundTripsThroughTheStrictParser() throws {
        var request = HermesPushRequest(deviceToken: Self.token, environment: .sandbox, type: .complete, sessionID: "20261130_154126_a1b2c3")
        request.hmac = String(repeating: "0f", count: 32)
        let parsed = try HermesPushRequest(body: request.encodedBody())
        #expect(parsed == request)
        #expect(parsed.canonicalBytes == request.canonicalBytes)
    }

    @Test func theBodyLimitDefaultsToTheContractsAndTheCallerMayRaiseIt() throws {
        var request = HermesPushRequest(deviceToken: Self.token, environment: .sandbox, type: .approval, sessionID: "s")
        request.hmac = String(repeating: "0f", count: 32)
        // An unknown member (ignored by the contract) pads the body past 4096 bytes.
        let body = Array(request.encodedBody().dropLast()) + Array(#","pad":""#.utf8)
            + Array(repeating: UInt8(ascii: "x"), count: 4_500) + Array(#""}"#.utf8)
        #expect(throws: HermesRequestError.invalidValue(field: "body", reason: "is larger than 4096 bytes")) {
            try HermesPushRequest(body: body)
        }
        #expect(try HermesPushRequest(body: body, maximumBodySize: 8_192) == request)
        #expect(throws: HermesRequestError.invalidValue(field: "body", reason: "is larger than 4096 bytes")) {
            try HermesPushRequest(body: body, maximumBodySize: 4_096)
        }
        let registration = Array(HermesRegistration.requestBody(deviceToken: Self.token).dropLast()) + Array(#","pad":""#.utf8)
            + Array(repeating: UInt8(ascii: "x"), count: 4_500) + Array(#""}"#.utf8)
        #expect(throws: HermesRequestError.self) { try HermesRegistration.deviceToken(fromRequestBody: registration) }
        #expect(try HermesRegistration.deviceToken(fromRequestBody: registration, maximumBodySize: 8_192).hex == Self.token)
    }

    @Test func keepsTheSendersTokenSpellingForTheHMAC() throws {
        var request = HermesPushRequest(deviceToken: Self.token.uppercased(), environment: .sandbox, type: .approval, sessionID: "s")
        request.capability = "cap"
        #expect(try HermesPushRequest(body: request.encodedBody()).deviceToken == Self.token.uppercased())
    }

    @Test(arguments: ["", "ABCD", String(repeating: "AB", count: 32), String(repeating: "ab", count: 31), "not hex at all"])
    func aMalformedHMACIsKeptAsSentForTheAuthorizationToRefuse(hmac: String) throws {
        var request = HermesPushRequest(deviceToken: Self.token, environment: .sandbox, type: .approval, sessionID: "s")
        request.hmac = hmac
        // Contract §2.3: a bad hmac is 403 (not authorized), never 400 (invalid request).
        #expect(try HermesPushRequest(body: request.encodedBody()).hmac == hmac)
    }

    @Test func deviceTokensAreAtLeast32AndAtMost128Bytes() throws {
        func push(_ token: String) throws -> HermesPushRequest {
            var request = HermesPushRequest(deviceToken: token, environment: .sandbox, type: .approval, sessionID: "s")
            request.capability = "cap"
            return try HermesPushRequest(body: request.encodedBody())
        }
        func registration(_ token: String) throws -> DeviceToken {
            try HermesRegistration.deviceToken(fromRequestBody: HermesRegistration.requestBody(deviceToken: token))
        }
        // 32 bytes, and the longer sizes reported (48, 54, 80 bytes), up to 128 bytes.
        for digits in [64, 96, 108, 160, 256] {
            let token = String(repeating: "ab", count: digits / 2)
            #expect(try push(token).deviceToken == token)
            #expect(try registration(token).hex == token)
        }
        for token in ["abcd", String(repeating: "ab", count: 31), String(repeating: "ab", count: 129)] {
            #expect(throws: HermesRequestError.invalidValue(field: "device_token", reason: "must be an even number of hex digits, 64 to 256")) {
                try push(token)
            }
            #expect(throws: HermesRequestError.invalidValue(field: "device_token", reason: "must be an even number of hex digits, 64 to 256")) {
                try registration(token)
            }
        }
    }

    static let invalidBodies: [(String, HermesRequestError)] = [
        ("[1]", .notAnObject),
        ("{", .malformedJSON("")),
        (#"{"apns_env":"sandbox"}"#, .missingField("device_token")),
        (#"{"device_token":12}"#, .notAString("device_token")),
        (#"{"device_token":"abc","apns_env":"sandbox"}"#, .invalidValue(field: "device_token", reason: "")),
        // Shorter than any token APNs issues (32 bytes), or longer than 128 bytes.
        (#"{"device_token":"abcd","apns_env":"sandbox"}"#, .invalidValue(field: "device_token", reason: "")),
        (#"{"device_token":"ababababababababababababababababababababababababababababababab","apns_env":"sandbox"}"#, .invalidValue(field: "device_token", reason: "")),
        (#"{"device_token":"ababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababababab","apns_env":"sandbox"}"#, .invalidValue(field: "device_token", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"staging"}"#, .invalidValue(field: "apns_env", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"spam"}"#, .invalidValue(field: "type", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":""}"#, .invalidValue(field: "session_id", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"../etc"}"#, .invalidValue(field: "session_id", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"s","title":"rm -rf /","body":"Hermes needs your approval","hmac":"x"}"#, .invalidValue(field: "title", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"s","title":"Approval needed","body":"secret text"}"#, .invalidValue(field: "body", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"s","title":"Approval needed","body":"Hermes needs your approval","thread_id":"t"}"#, .invalidValue(field: "thread_id", reason: "")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"s","title":"Approval needed","body":"Hermes needs your approval","hmac":7}"#, .notAString("hmac")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"s","title":"Approval needed","body":"Hermes needs your approval","capability":7}"#, .notAString("capability")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":"sandbox","type":"approval","session_id":"s","title":"Approval needed","body":"Hermes needs your approval"}"#, .missingAuthorization),
    ]

    @Test(arguments: invalidBodies)
    func rejectsBodiesThatBreakTheContract(body: String, expected: HermesRequestError) {
        #expect {
            try HermesPushRequest(body: Array(body.utf8))
        } throws: { error in
            guard let error = error as? HermesRequestError else { return false }
            switch (error, expected) {
            case (.malformedJSON, .malformedJSON): return true
            case (.invalidValue(let field, _), .invalidValue(let expectedField, _)): return field == expectedField
            default: return error == expected
            }
        }
    }

    @Test func rejectsOversizedBodies() {
        let body = Array(#"{"pad":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 5_000) + Array(#""}"#.utf8)
        #expect(throws: HermesRequestError.self) { try HermesPushRequest(body: body) }
    }

    @Test func registrationBodiesRoundTrip() throws {
        #expect(try HermesRegistration.deviceToken(fromRequestBody: HermesRegistration.requestBody(deviceToken: Self.token.uppercased())).hex == Self.token)
        #expect(try HermesRegistration.capability(fromResponseBody: HermesRegistration.responseBody(capability: "c1")) == "c1")
        #expect(throws: HermesRequestError.self) { try HermesRegistration.deviceToken(fromRequestBody: Array(#"{"device_token":"xyz"}"#.utf8)) }
    }
}
