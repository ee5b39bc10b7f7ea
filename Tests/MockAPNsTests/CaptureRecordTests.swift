import APNsCore
import Foundation
import HTTPTransport
import JWTVerify
@testable import APNsCapture
@testable import MockAPNs
import StrictJSON
import Testing

/// Records and files shared by the capture tests.
enum CaptureFixtures {
    static let jwtHeader = "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ"
    static let jwtClaims = "eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzk1OTU4NzkzfQ"
    static let jwtSignature = "SIGnatureSecretXq3vN0tReally-ASignatureButUnique_8d7f6e5a4b3c2d1e0f"
    static let bearerToken = "\(jwtHeader).\(jwtClaims).\(jwtSignature)"
    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let otherToken = DeviceToken(String(repeating: "cd", count: 32))!

    static func request(
        token: DeviceToken = token, body: [UInt8] = Array(#"{"aps":{"alert":"hi","badge":1}}"#.utf8),
        receivedAt: Date = Date(timeIntervalSince1970: 1_795_958_793.123456), topic: String = "com.example.app"
    ) -> PushRequest {
        PushRequest(
            method: "POST", path: "/3/device/\(token.hex)",
            headers: [
                "apns-topic": topic, "Authorization": "bearer \(bearerToken)", "apns-push-type": "alert",
                "apns-priority": "10", "x-dup": "1", "x-dup": "2\n\"quoted\"",
            ],
            body: body, environment: .sandbox, connectionID: 42, receivedAt: receivedAt)
    }

    static func details(token: DeviceToken = token, topic: String = "com.example.app", payload: JSONValue?) -> PushDetails {
        var details = PushDetails()
        details.deviceToken = token
        details.rawDeviceToken = token.hex.uppercased()
        details.topic = topic
        details.pushType = .alert
        details.priority = .immediately
        details.expiration = 1_795_962_393
        details.collapseID = "group-1"
        details.payload = payload
        details.tokenHeader = ["alg": "ES256", "kid": "ABC123DEFG"]
        details.tokenClaims = ["iss": "DEF123GHIJ", "iat": 1_795_958_793]
        details.tokenFingerprint = "0123456789abcdef"
        details.teamID = "DEF123GHIJ"
        details.keyID = "ABC123DEFG"
        details.lintWarnings = [
            PushLintWarning(code: "aps.unknown-key", message: "“sound2” is not an aps key", path: "aps.sound2"),
            PushLintWarning(code: "token.iat-string", message: "iat is a string"),
        ]
        return details
    }

    /// A fully populated record: every optional field set, escapes and non-ASCII text.
    static func fullRecord(
        token: DeviceToken = token, topic: String = "com.example.app", accepted: Bool = true,
        apnsID: String = "8A2F1E3C-0000-4000-8000-00000000ABCD", receivedAt: Date = Date(timeIntervalSince1970: 1_795_958_793.123456)
    ) -> CaptureRecord {
        let body = Array(#"{"aps":{"alert":"héllo \u0001 \"😀\"","badge":1.5},"n":[1,-2,null,true]}"#.utf8)
        let payload: JSONValue = ["aps": ["alert": "héllo \u{01} \"😀\"", "badge": 1.5], "n": [1, -2, nil, true]]
        let outcome: PushOutcome = accepted
            ? .accepted(apnsID: apnsID, uniqueID: "unique-1")
            : .rejected(.unregistered, apnsID: apnsID, uniqueID: nil, timestamp: 1_795_958_000_000, connectionAction: .goAway)
        return CaptureRecord(
            request: request(token: token, body: body, receivedAt: receivedAt, topic: topic),
            details: details(token: token, topic: topic, payload: payload), outcome: outcome,
            faults: ["delay-500ms", "fault#3"])
    }

    static func temporaryPath(_ name: String = #function) -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        return FileManager.default.temporaryDirectory
            .appendingPathComponent("capture-\(safe)-\(UUID().uuidString).jsonl").path
    }
}

@Suite struct CaptureRecordTests {
    @Test func theAuthorizationHeaderIsDroppedAndTheTokenKeptDecoded() {
        let record = CaptureFixtures.fullRecord()
        #expect(record.headers["authorization"] == nil)
        #expect(record.headers.count == 5)
        #expect(record.token?.fingerprint == "0123456789abcdef")
        #expect(record.token?.header == ["alg": "ES256", "kid": "ABC123DEFG"])
        #expect(record.receivedAtMicroseconds == 1_795_958_793_123_456)
        #expect(record.sequence == 0)
    }

    @Test func aFullRecordRoundTripsThroughItsLine() throws {
        for accepted in [true, false] {
            var record = CaptureFixtures.fullRecord(accepted: accepted)
            record.sequence = 77
            let line = CaptureRecordEncoder.line(record)
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
            let decoded = try CaptureRecordDecoder.decode(Array(line.dropLast()))
            #expect(decoded == record)
        }
    }

    @Test func aPayloadSpreadOverLinesStaysOnOneCaptureLine() throws {
        let body = Array("{\n  \"aps\" : {\"alert\":\"two  spaces \\\" and\\\\ \\n\"},\r\n\t\"n\": [1 , 2]\n}\n".utf8)
        // As validation leaves it: the accepted bytes stand for the parsed payload.
        var details = CaptureFixtures.details(payload: nil)
        details.setPayload(parsedFrom: body, maximumDepth: JSONParser.defaultMaximumDepth)
        var record = CaptureRecord(
            request: CaptureFixtures.request(body: body), details: details, outcome: .accepted(apnsID: "A", uniqueID: nil))
        record.sequence = 1
        let line = CaptureRecordEncoder.line(record)
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""parsed":{"aps":{"alert":"two  spaces \" and\\ \n"},"n":[1,2]}"#), "\(text)")
        #expect(try CaptureRecordDecoder.decode(Array(line.dropLast())) == record)
    }

    @Test func aMinimalRecordAndABinaryPayloadRoundTrip() throws {
        let request = PushRequest(
            method: "GET", path: "/3/device/zz", headers: [:], body: [0xFF, 0x00, 0xC3, 0x28, 0x41],
            environment: .production, connectionID: 0, receivedAt: Date(timeIntervalSince1970: 0))
        var record = CaptureRecord(
            request: request, details: PushDetails(),
            outcome: .rejected(.methodNotAllowed, apnsID: "id", uniqueID: nil), faults: [])
        record.sequence = 1
        #expect(record.token == nil)
        let line = CaptureRecordEncoder.line(record)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""payload":{"size":5,"base64":true,"raw":"/wDDKEE="}"#))
        #expect(text.hasPrefix(#"{"v":1,"seq":1,"time":"1970-01-01T00:00:00.000000Z","env":"production""#))
        #expect(try CaptureRecordDecoder.decode(Array(line.dropLast())) == record)
    }

    @Test func aRequestWithAnUndecodableTokenStillRecordsThatOneWasSent() {
        let request = PushRequest(
            method: "POST", path: "/3/device/ab", headers: ["authorization": "bearer garbage"], body: [],
            environment: .sandbox, connectionID: 1, receivedAt: Date())
        let record = CaptureRecord(
            request: request, details: PushDetails(),
            outcome: .rejected(.invalidProviderToken, apnsID: "id", uniqueID: nil))
        #expect(record.token == CaptureTokenInfo())
        #expect(!String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self).contains("garbage"))
    }

    @Test func theBearerTokenAndSignatureNeverReachTheFile() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(filePath: path)
        for accepted in [true, false] { store.record(CaptureFixtures.fullRecord(accepted: accepted)) }
        store.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for secret in [CaptureFixtures.bearerToken, CaptureFixtures.jwtSignature, "bearer ", "uthorization"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) leaked into the capture file")
        }
        let records = store.records()
        #expect(records.count == 2)
        for record in records {
            #expect(!"\(record)".contains(CaptureFixtures.jwtSignature))
        }
    }

    @Test func decodingRejectsOtherVersionsAndNamesTheBadField() {
        var record = CaptureFixtures.fullRecord()
        record.sequence = 3
        let text = String(decoding: CaptureRecordEncoder.line(record).dropLast(), as: UTF8.self)
        let future = text.replacingOccurrences(of: #"{"v":1,"#, with: #"{"v":2,"#)
        #expect(throws: CaptureDecodingError.self) { try CaptureRecordDecoder.decode(Array(future.utf8)) }
        let badStatus = text.replacingOccurrences(of: #""status":200"#, with: #""status":"200""#)
        do {
            _ = try CaptureRecordDecoder.decode(Array(badStatus.utf8))
            Issue.record("a string status decoded")
        } catch {
            #expect(error.message.contains("status"))
        }
        // Unknown keys are ignored so later versions can add fields.
        let extended = text.replacingOccurrences(of: #""faults":"#, with: #""future":{"x":1},"faults":"#)
        #expect((try? CaptureRecordDecoder.decode(Array(extended.utf8))) == record)
    }

    @Test func timestampsFormatAndParseAcrossTheCalendar() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00.000000Z"),
            (951_782_400_000_001, "2000-02-29T00:00:00.000001Z"),
            (1_795_958_793_123_456, "2026-11-29T13:26:33.123456Z"),
            (-1, "1969-12-31T23:59:59.999999Z"),
        ]
        for (micros, text) in cases {
            #expect(CaptureTimestamp.string(microseconds: micros) == text)
            #expect(CaptureTimestamp.parse(text) == micros)
        }
        for bad in ["2026-02-30T00:00:00.000000Z", "2026-11-29T10:46:33Z", "2026-11-29 10:46:33.123456Z", ""] {
            #expect(CaptureTimestamp.parse(bad) == nil)
        }
    }

    @Test func timestampsOfOtherSecondsAreNotServedFromTheLastOnesText() {
        // The formatter keeps the last second's text: each of these differs from the one
        // before in the second, the day, the year or only the fraction.
        let cases: [(Int64, String)] = [
            (1_795_958_793_123_456, "2026-11-29T13:26:33.123456Z"),
            (1_795_958_793_999_999, "2026-11-29T13:26:33.999999Z"),
            (1_795_958_794_000_000, "2026-11-29T13:26:34.000000Z"),
            (1_795_958_793_000_001, "2026-11-29T13:26:33.000001Z"),
            (1_796_045_193_000_001, "2026-11-30T13:26:33.000001Z"),
            (1_764_422_793_000_001, "2025-11-29T13:26:33.000001Z"),
            (-1, "1969-12-31T23:59:59.999999Z"),
            (0, "1970-01-01T00:00:00.000000Z"),
        ]
        for _ in 0..<2 {
            for (micros, text) in cases { #expect(CaptureTimestamp.string(microseconds: micros) == text) }
        }
    }

    @Test func base64RoundTripsEveryLengthAndRejectsJunk() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            var encoded = TextBuffer(capacity: 4)
            CaptureBase64.encode(bytes, into: &encoded)
            #expect(CaptureBase64.decode(String(decoding: encoded.bytes, as: UTF8.self)) == bytes)
        }
        #expect(CaptureBase64.decode("AB=C") == nil)
        #expect(CaptureBase64.decode("ABC") == nil)
        #expect(CaptureBase64.decode("A*==") == nil)
    }

    @Test func escapingFindsEverySpecialByteAtEveryPositionOfAWord() throws {
        // The escaper skips clean runs eight bytes at a time; put each byte that needs an
        // escape at each offset of a string long enough to span several words.
        for special in ["\"", "\\", "\n", "\u{0}", "\u{1f}", "\t"] {
            for length in 1...24 {
                for position in 0..<length {
                    var text = String(repeating: "é", count: position % 3) + String(repeating: "a", count: length)
                    text.insert(contentsOf: special, at: text.index(text.startIndex, offsetBy: position))
                    var output = TextBuffer(capacity: 8)
                    CaptureJSONOutput.writeString(text, into: &output)
                    #expect(try JSONParser.parse(output.bytes) == .string(text), "\(special.debugDescription) at \(position) of \(length)")
                }
            }
        }
    }

    @Test func escapingTextDenseWithSpecialBytesRoundTrips() throws {
        // Several escapes in one word, escapes back to back, and clean bytes between them.
        let alphabet: [String] = ["a", "\"", "\\", "\n", "\u{1}", "é", "\r", "😀"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for length in 0..<48 {
            for _ in 0..<8 {
                var text = ""
                for _ in 0..<length {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    text += alphabet[Int(state >> 61)]
                }
                var output = TextBuffer(capacity: 1)
                CaptureJSONOutput.writeString(text, into: &output)
                #expect(try JSONParser.parse(output.bytes) == .string(text), "\(text.debugDescription)")
            }
        }
    }

    @Test func utf8ValidationMatchesTheStandardLibrary() {
        let samples: [[UInt8]] = [
            [], Array("plain".utf8), Array("é😀中".utf8), [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
            [0xE2, 0x82], [0x80], [0xF0, 0x9F, 0x98, 0x80], [0xEF, 0xBF, 0xBF],
        ]
        for sample in samples {
            #expect(UTF8Validation.isValid(sample) == (String(validating: sample, as: UTF8.self) != nil), "\(sample)")
        }
    }
}

@Suite struct CaptureFormatDocumentTests {
    /// The example line in docs/capture-format.md, which is what push-inspect's authors read.
    private func documentedExample() throws -> String? {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/capture-format.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        guard let start = text.range(of: "```json\n"), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }

    @Test func theDocumentedExampleIsWhatTheEncoderWrites() throws {
        var record = CaptureFixtures.fullRecord(accepted: false)
        record.sequence = 7
        record.lintWarnings.removeLast()
        record.parsedPayload = ["aps": ["alert": "hi"]]
        record.payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        record.token?.header = ["alg": "ES256"]
        record.token?.claims = ["iss": "DEF123GHIJ"]
        record.faults = ["slow: delay 500 ms", "fault-3: reset stream CANCEL"]  // as APNsEndpoint writes them
        let line = String(decoding: CaptureRecordEncoder.line(record).dropLast(), as: UTF8.self)
        let example = try #require(try documentedExample())
        #expect(example == line)
        #expect(try CaptureRecordDecoder.decode(Array(example.utf8)) == record)
    }
}
