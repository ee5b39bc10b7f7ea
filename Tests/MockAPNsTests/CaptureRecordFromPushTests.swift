import APNsCore
import Foundation
@testable import APNsCapture
@testable import MockAPNs
import StrictJSON
import Testing

/// The one value the mock gives the capture per push: `CaptureRecord(request:details:outcome:faults:)`,
/// built from what validation learned. What it writes must be what validation found.
@Suite struct CaptureRecordFromPushTests {
    func captured(
        _ request: PushRequest, _ validation: PushDecision
    ) throws -> (line: [UInt8], record: CaptureRecord, decoded: CaptureRecord) {
        var record = CaptureRecord(request: request, details: validation.details, outcome: validation.outcome(apnsID: "A", uniqueID: nil))
        record.sequence = 1
        let line = CaptureRecordEncoder.line(record)
        return (line, record, try CaptureRecordDecoder.decode(Array(line.dropLast())))
    }

    @Test func aConnectionThatChangesItsTokenIsCapturedWithEachTokensClaims() throws {
        let clock = TestClock()
        let validator = try ValidationFixtures.validator(clock: clock)
        let earlier = ValidationFixtures.start
        let later = ValidationFixtures.start.addingTimeInterval(1800)
        let first = try ValidationFixtures.providerToken(issuedAt: earlier)
        let second = try ValidationFixtures.providerToken(issuedAt: later)
        var auth = ConnectionAuthState(environment: .sandbox)
        var issuedAt: [JSONValue?] = []
        for (index, token) in [first, first, second, second].enumerated() {
            // APNs allows a new token on a connection only after 20 minutes.
            if index == 2 { clock.advance(by: 1800) }
            let request = ValidationFixtures.request(token: token)
            let validation = validator.validate(request, auth: &auth)
            #expect(validation.reason == nil)
            let (_, record, decoded) = try captured(request, validation)
            #expect(decoded == record)
            if case .object(let claims)? = decoded.token?.claims { issuedAt.append(claims["iat"]) } else { issuedAt.append(nil) }
        }
        let expected: [JSONValue?] = [.integer(1_800_000_000), .integer(1_800_000_000), .integer(1_800_001_800), .integer(1_800_001_800)]
        #expect(issuedAt == expected)
    }

    @Test func theParsedPayloadIsTheAcceptedBodyAndItsBytesAreKept() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let body = #"{ "aps" : {"alert":{"title":"T","body":"a \"quoted\" word"},"badge":2}, "x": [1, 2.5, null] }"#
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken(), payload: body)
        let validation = validator.validate(request, auth: &auth)
        let expected = try JSONParser.parse(Array(body.utf8))
        #expect(validation.details.payload == expected)
        let (line, _, decoded) = try captured(request, validation)
        #expect(decoded.parsedPayload == expected)
        #expect(decoded.payload == Array(body.utf8))
        #expect(String(decoding: line, as: UTF8.self).contains(
            #""parsed":{"aps":{"alert":{"title":"T","body":"a \"quoted\" word"},"badge":2},"x":[1,2.5,null]}"#))
    }

    /// Validation checks every body strictly; the record says so, so that the capture does
    /// not check it again, but only for the very body validation accepted.
    @Test func aBodyValidationAcceptedIsNotedAsJSONAndNoOther() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken(), payload: #"{"aps":{"alert":"hi"}}"#)
        let validation = validator.validate(request, auth: &auth)
        #expect(validation.isAccepted)
        func isNoted(_ record: CaptureRecord) -> Bool {
            if case .json = record.storedPayload.knowledge { return true }
            return false
        }
        #expect(isNoted(CaptureRecord(request: request, details: validation.details, outcome: .accepted(apnsID: "A", uniqueID: nil))))
        var other = request
        other.body = Array(#"{"aps":{"alert":"no"}"#.utf8)
        let record = CaptureRecord(request: other, details: validation.details, outcome: .accepted(apnsID: "A", uniqueID: nil))
        #expect(!isNoted(record))
        // Not JSON, so written as text: the note would have made the line lie.
        #expect(String(decoding: record.encodedLine(), as: UTF8.self).contains(#""payload":{"size":21,"raw":"#))
        var deep = CaptureRecord(request: request, details: validation.details, outcome: .accepted(apnsID: "A", uniqueID: nil))
        deep.payload = request.body
        deep.notePayloadAcceptedAsJSON(maximumDepth: 513)
        #expect(!isNoted(deep), "a limit deeper than the capture's notes nothing")
    }

    @Test func theAuthorizationHeaderIsDroppedAndTheTokenKeptDecoded() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let token = try ValidationFixtures.providerToken()
        let request = ValidationFixtures.request(token: token)
        let validation = validator.validate(request, auth: &auth)
        let (line, record, _) = try captured(request, validation)
        #expect(request.headers["authorization"] != nil)
        #expect(record.headers["authorization"] == nil)
        #expect(record.headers.count == request.headers.count - 1)
        #expect(record.token?.fingerprint == validation.details.tokenFingerprint && record.token?.claims != nil)
        let text = String(decoding: line, as: UTF8.self)
        for secret in [token, String(token.split(separator: ".").last ?? ""), "bearer "] {
            #expect(!text.contains(secret), "\(secret) leaked into the line")
        }
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
        let withoutToken = CaptureRecord(
            request: PushRequest(method: "POST", path: "/3/device/ab", headers: [:], body: [], environment: .sandbox,
                                 connectionID: 1, receivedAt: Date()),
            details: PushDetails(), outcome: .rejected(.missingProviderToken, apnsID: "id", uniqueID: nil))
        #expect(withoutToken.token == nil)
    }

    @Test func anAnsweredPushIsWrittenAsItsRecordWouldBe() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken(), payload: #"{"aps":{"alert":"hi"}}"#)
        let details = validator.validate(request, auth: &auth).details
        let outcome = PushOutcome.accepted(apnsID: "C", uniqueID: "u")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("capture-answered-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let store = try CaptureStore(filePath: path)
        store.pushAnswered(request, details: details, outcome: outcome, faults: ["f1"])
        store.close()

        var expected = CaptureRecord(request: request, details: details, outcome: outcome, faults: ["f1"])
        expected.sequence = 1
        let line = try #require(FileManager.default.contents(atPath: path))
        #expect(Array(line) == CaptureRecordEncoder.line(expected))
        #expect(store.records() == [expected])
        #expect(expected.headers["authorization"] == nil && expected.token != nil)
        #expect(String(decoding: line, as: UTF8.self).contains("bearer") == false)
    }
}
