@testable import APNsCapture
import APNsCore
import Foundation
import StrictJSON
import Testing

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

    /// The mock's sentence of why, and whether a fault rule chose the answer, are kept after
    /// the reason; neither is written when absent.
    @Test func anExplanationAndAnInjectedAnswerRoundTrip() throws {
        var record = CaptureFixtures.fullRecord(accepted: false)
        record.sequence = 3
        record.outcome.explanation = "fault rule outage answered 503 \"ServiceUnavailable\"\n\u{202E}"
        record.outcome.isInjected = true
        let line = CaptureRecordEncoder.line(record)
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#","explanation":"fault rule outage answered 503 \"ServiceUnavailable\"\n"#), "\(text)")
        #expect(text.contains(#","injected":true"#), "\(text)")
        #expect(try CaptureRecordDecoder.decode(Array(line.dropLast())) == record)

        record.outcome.explanation = nil
        record.outcome.isInjected = false
        let plain = String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self)
        #expect(!plain.contains("explanation") && !plain.contains("injected"))
    }

    @Test func aPayloadSpreadOverLinesStaysOnOneCaptureLineAndKeepsItsBytes() throws {
        let body = Array("{\n  \"aps\" : {\"alert\":\"two  spaces \\\" and\\\\ \\n\"},\r\n\t\"n\": [1 , 2]\n}\n".utf8)
        var record = CaptureFixtures.minimalRecord(body: body)
        record.sequence = 1
        let line = CaptureRecordEncoder.line(record)
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let text = String(decoding: line, as: UTF8.self)
        // `parsed` without the whitespace; `raw`, because that changed the bytes.
        #expect(text.contains(#""payload":{"size":\#(body.count),"parsed":{"aps":{"alert":"two  spaces \" and\\ \n"},"n":[1,2]},"raw":"{\n  \"aps\""#), "\(text)")
        let decoded = try CaptureRecordDecoder.decode(Array(line.dropLast()))
        #expect(decoded == record)
        #expect(decoded.payload == body)
        #expect(decoded.parsedPayload == (try JSONParser.parse(body)))
    }

    /// Each fact once: a compact JSON body is only `parsed`, and its bytes come back from the
    /// line's text exactly, escapes, key order and number spellings included.
    @Test func aCompactJSONBodyIsWrittenOnceAndReadBackByteForByte() throws {
        let bodies = [
            #"{"aps":{"alert":"hi"}}"#, #"{"z":1,"a":2,"m":[1.50,-0,1e3,2E-2]}"#, #"{"u":"\u00e9\/\n","é":"😀"}"#,
            #"{"aps":{"alert":{"title":"a \"quoted\" word","body":"x"}},"parsed":{"raw":"base64"}}"#, "[1,2]", #""text""#, "0",
        ]
        for text in bodies {
            let body = Array(text.utf8)
            var record = CaptureFixtures.minimalRecord(body: body)
            record.sequence = 2
            let line = String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self)
            #expect(line.contains(#""payload":{"size":\#(body.count),"parsed":\#(text)},"status""#), "\(line)")
            let decoded = try CaptureRecordDecoder.decode(Array(line.utf8.dropLast()))
            #expect(decoded.payload == body, "\(text)")
            #expect(decoded.parsedPayload == (try JSONParser.parse(body)), "\(text)")
        }
    }

    @Test func aBodyThatIsNotJSONIsRawTextOrBase64() throws {
        let cases: [(body: [UInt8], payload: String)] = [
            (Array("hello, \"world\"\n".utf8), #""payload":{"size":15,"raw":"hello, \"world\"\n"}"#),
            (Array(#"{"a":1,"a":2}"#.utf8), #""payload":{"size":13,"raw":"{\"a\":1,\"a\":2}"}"#),
            ([0xFF, 0x00, 0xC3, 0x28, 0x41], #""payload":{"size":5,"base64":"/wDDKEE="}"#),
            ([], #""payload":{"size":0}"#),
        ]
        for (body, payload) in cases {
            var record = CaptureFixtures.minimalRecord(body: body)
            record.sequence = 1
            let line = String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self)
            #expect(line.contains(payload), "\(line)")
            let decoded = try CaptureRecordDecoder.decode(Array(line.utf8.dropLast()))
            #expect(decoded.payload == body)
            #expect(decoded.parsedPayload == nil)
        }
    }

    @Test func aMinimalRecordRoundTripsWithTheDefaultsLeftOut() throws {
        var record = CaptureRecord(
            receivedAtMicroseconds: 0, environment: .production, connectionID: 0, method: "GET", path: "/3/device/zz",
            headers: [:], payload: [0xFF, 0x00, 0xC3, 0x28, 0x41],
            outcome: CaptureFixtures.rejected(.methodNotAllowed, status: 405, apnsID: "id"))
        record.sequence = 1
        #expect(record.token == nil)
        let text = String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self)
        #expect(text == #"{"v":2,"seq":1,"kind":"push","time":"1970-01-01T00:00:00.000000Z","env":"production","conn":0,"method":"GET","path":"/3/device/zz","headers":[],"payload":{"size":5,"base64":"/wDDKEE="},"status":405,"reason":"MethodNotAllowed","apns_id":"id"}"# + "\n")
        #expect(try CaptureRecordDecoder.decode(Array(text.utf8.dropLast())) == record)
    }

    /// The token text the client sent is the path's: it is not written again beside the
    /// normalised `device_token`.
    @Test func theRawDeviceTokenIsThePathsText() throws {
        var record = CaptureFixtures.fullRecord()
        record.path = "/3/device/" + CaptureFixtures.token.hex.uppercased()
        record.sequence = 1
        let text = String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self)
        #expect(!text.contains("raw_device_token"))
        #expect(text.components(separatedBy: CaptureFixtures.token.hex.uppercased()).count == 2, "once, in the path")
        #expect(text.components(separatedBy: CaptureFixtures.token.hex).count == 2, "once, as device_token")
        let decoded = try CaptureRecordDecoder.decode(Array(text.utf8.dropLast()))
        #expect(decoded.rawDeviceToken == CaptureFixtures.token.hex.uppercased())
        #expect(decoded.deviceToken == CaptureFixtures.token)
        record.path = "/3/device/not/a token"
        #expect(record.rawDeviceToken == "not/a token")
        record.path = "/3/device/"
        #expect(record.rawDeviceToken == nil)
        record.path = "/healthz"
        #expect(record.rawDeviceToken == nil)
    }

    @Test func anAuthorizationHeaderIsRefusedHoweverTheListIsBuilt() throws {
        var headers = CaptureHeaders([(name: "AUTHORIZATION", value: "bearer a.b.c"), (name: "apns-topic", value: "t")])
        let keptCredential = headers.add(name: "authorization", value: "bearer x")
        let keptOther = headers.add(name: "authorizations", value: "not the credential")
        #expect(!keptCredential && keptOther)
        #expect(headers.fields.map(\.name) == ["apns-topic", "authorizations"])
        #expect(headers["APNS-TOPIC"] == "t")
    }

    @Test func theBearerTokenNeverReachesTheFile() throws {
        let path = CaptureFixtures.temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(filePath: path)
        for accepted in [true, false] { store.record(CaptureFixtures.fullRecord(accepted: accepted)) }
        store.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for secret in [CaptureFixtures.bearerToken, "bearer ", "uthorization"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) leaked into the capture file")
        }
        #expect(store.records().count == 2)
    }

    @Test func decodingRejectsOtherVersionsAndKindsAndNamesTheBadField() {
        var record = CaptureFixtures.fullRecord()
        record.sequence = 3
        let text = String(decoding: CaptureRecordEncoder.line(record).dropLast(), as: UTF8.self)
        let future = text.replacingOccurrences(of: #"{"v":2,"#, with: #"{"v":3,"#)
        let futureError = #expect(throws: CaptureDecodingError.self) { try CaptureRecordDecoder.decode(Array(future.utf8)) }
        #expect(futureError?.kind == .unsupportedVersion)
        let otherKind = text.replacingOccurrences(of: #""kind":"push""#, with: #""kind":"snapshot""#)
        let kindError = #expect(throws: CaptureDecodingError.self) { try CaptureRecordDecoder.decode(Array(otherKind.utf8)) }
        #expect(kindError?.kind == .unsupportedKind)
        let delivery = text.replacingOccurrences(of: #""kind":"push""#, with: #""kind":"delivery""#)
        let deliveryError = #expect(throws: CaptureDecodingError.self) { try CaptureRecordDecoder.decode(Array(delivery.utf8)) }
        #expect(deliveryError?.kind == .otherKind, "a kind this package writes is no push, and no warning")
        let noKind = text.replacingOccurrences(of: #""kind":"push","#, with: "")
        do {
            _ = try CaptureRecordDecoder.decode(Array(noKind.utf8))
            Issue.record("a version-2 record without a kind decoded")
        } catch {
            #expect(error.kind == .malformed && error.message.contains("kind"))
        }
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
    /// The example lines in docs/capture-format.md, which is what push-inspect's authors
    /// read: the version-2 example, then the same push as version 1 wrote it.
    func documentedExamples() throws -> [String] {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/capture-format.md")
        var text = try String(contentsOf: docs, encoding: .utf8)[...]
        var examples: [String] = []
        while let start = text.range(of: "```json\n"), let end = text.range(of: "\n```", range: start.upperBound..<text.endIndex) {
            examples.append(String(text[start.upperBound..<end.lowerBound]))
            text = text[end.upperBound...]
        }
        return examples
    }

    @Test func theDocumentedChannelOperationIsWhatTheEncoderWritesAndPushReadersSkip() throws {
        let example = try #require(try documentedExamples().first { $0.contains(#""kind":"channel""#) })
        let operation = CaptureChannelOperation(
            receivedAtMicroseconds: try #require(CaptureTimestamp.parse("2026-12-04T23:40:01.000001Z")), environment: .sandbox,
            connectionID: 3, method: "POST", path: "/1/apps/com.example.app/channels", operation: "create",
            bundleID: "com.example.app", channelID: "d/rIlBEWqzOQkqIX5U/xSg==", storagePolicy: 1, status: 201, reason: nil,
            explanation: nil, requestID: "157532b5-def1-489c-8000-000000000001", teamID: "TEAM000001", keyID: "ABC123DEFG")
        #expect(String(decoding: CaptureStore.encodedLine(operation, sequence: 12).dropLast(), as: UTF8.self) == example)
        #expect(throws: CaptureDecodingError.self) { try CaptureRecordDecoder.decode(Array(example.utf8)) }
        do {
            _ = try CaptureRecordDecoder.decode(Array(example.utf8))
        } catch {
            #expect(error.kind == .otherKind)
        }
    }

    @Test func theDocumentedExampleIsWhatTheEncoderWritesAndVersion1ReadsTheSame() throws {
        var record = CaptureFixtures.fullRecord(accepted: false)
        record.sequence = 7
        record.lintWarnings.removeLast()
        record.payload = Array(#"{"aps":{"alert":"hi"}}"#.utf8)
        record.token?.header = ["alg": "ES256"]
        record.token?.claims = ["iss": "DEF123GHIJ"]
        record.faults = ["slow: delay 500 ms", "fault-3: reset stream CANCEL"]  // as APNsEndpoint writes them
        let line = String(decoding: CaptureRecordEncoder.line(record).dropLast(), as: UTF8.self)
        // Channel operations and delivery events have tests of their own (ChannelObservationTests,
        // CaptureDeliveryEventTests); the push examples are the version-2 line and its version-1 form.
        let examples = try documentedExamples().filter { !$0.contains(#""kind":"channel""#) && !$0.contains(#""kind":"delivery""#) }
        try #require(examples.count == 2)
        #expect(examples[0] == line)
        #expect(try CaptureRecordDecoder.decode(Array(examples[0].utf8)) == record)
        #expect(examples[1].hasPrefix(#"{"v":1,"#))
        #expect(try CaptureRecordDecoder.decode(Array(examples[1].utf8)) == record)
    }
}
