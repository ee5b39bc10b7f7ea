import APNsCore
import Foundation
@testable import MockAPNs
import StrictJSON
import Testing

/// The capture reuses work validation did (the token's JSON per connection, the accepted
/// payload bytes): what it writes must be exactly what encoding from scratch writes.
@Suite struct CaptureEncodingReuseTests {
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
            let (line, record, decoded) = try captured(request, validation)
            if case .object(let claims)? = decoded.token?.claims { issuedAt.append(claims["iat"]) } else { issuedAt.append(nil) }
            // The reused encoding is byte for byte what encoding the record afresh gives
            // (setting the token drops what validation encoded).
            var fresh = record
            fresh.token = record.token
            #expect(CaptureRecordEncoder.line(fresh) == line)
        }
        let expected: [JSONValue?] = [.integer(1_800_000_000), .integer(1_800_000_000), .integer(1_800_001_800), .integer(1_800_001_800)]
        #expect(issuedAt == expected)
    }

    @Test func theParsedPayloadIsTheAcceptedBytesReadBackOnDemand() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let body = #"{ "aps" : {"alert":{"title":"T","body":"a \"quoted\" word"},"badge":2}, "x": [1, 2.5, null] }"#
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken(), payload: body)
        let validation = validator.validate(request, auth: &auth)
        let expected = try JSONParser.parse(Array(body.utf8))
        #expect(validation.details.payload == expected)
        let (line, _, decoded) = try captured(request, validation)
        #expect(decoded.parsedPayload == expected)
        #expect(String(decoding: line, as: UTF8.self).contains(
            #""parsed":{"aps":{"alert":{"title":"T","body":"a \"quoted\" word"},"badge":2},"x":[1,2.5,null]}"#))
        // A parsed payload set by hand is written from the tree, and replaces the bytes.
        var record = decoded
        record.parsedPayload = ["other": true]
        #expect(String(decoding: CaptureRecordEncoder.line(record), as: UTF8.self).contains(#""parsed":{"other":true}"#))
    }

    @Test func aLineLongerThanItsEstimateGrowsTheBufferIntact() throws {
        var buffer = TextBuffer(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let chunk = Array("chunk \(round) é\n".utf8)
            chunk.withUnsafeBufferPointer { buffer.append($0) }
            expected += chunk
            buffer.append(UInt8(ascii: ";"))
            expected.append(UInt8(ascii: ";"))
        }
        #expect(buffer.bytes == expected)
        #expect(buffer.count == expected.count)
    }
}

extension CaptureEncodingReuseTests {
    @Test func editingTheTokenFieldsOfDetailsDropsTheEncodedToken() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken())
        let validation = validator.validate(request, auth: &auth)
        for edit in 0..<3 {
            var details = validation.details
            switch edit {
            case 0: details.tokenClaims = ["iss": "EDITED"]
            case 1: details.tokenHeader = ["alg": "EDITED"]
            default: details.tokenFingerprint = "EDITEDEDITEDEDIT"
            }
            var record = CaptureRecord(request: request, details: details, outcome: .accepted(apnsID: "A", uniqueID: nil))
            record.sequence = 1
            let decoded = try CaptureRecordDecoder.decode(Array(CaptureRecordEncoder.line(record).dropLast()))
            #expect(decoded.token == record.token, "edit \(edit)")
        }
    }
}

extension CaptureEncodingReuseTests {
    /// The line the capture store writes for an answered push, sequence 1.
    func answeredLine(_ request: PushRequest, _ details: PushDetails) -> [UInt8] {
        var output = TextBuffer(capacity: 256)
        CaptureRecordEncoder.writePrefix(sequence: 1, into: &output)
        let push = AnsweredPush(request: request, details: details, outcome: .accepted(apnsID: "A", uniqueID: nil), faults: [])
        CaptureRecordEncoder.writeTail(push, into: &output)
        return output.bytes
    }

    @Test func aValidatedDevicePathIsCopiedAsItIsOnlyForThePathAndTokenValidationSaw() throws {
        let validator = try ValidationFixtures.validator()
        var auth = ConnectionAuthState(environment: .sandbox)
        let request = ValidationFixtures.request(token: try ValidationFixtures.providerToken())
        let validation = validator.validate(request, auth: &auth)
        #expect(validation.reason == nil)
        #expect(AnsweredPush(request: request, details: validation.details, outcome: .accepted(apnsID: "A", uniqueID: nil),
                             faults: []).devicePathIsHex)
        let (line, _, _) = try captured(request, validation)
        #expect(answeredLine(request, validation.details) == line)

        // Paired with another path, or with its raw token edited, the details vouch for nothing.
        var other = request
        other.path = #"/3/device/"quoted"\"#
        let otherLine = answeredLine(other, validation.details)
        #expect(try CaptureRecordDecoder.decode(Array(otherLine.dropLast())).path == other.path)
        var edited = validation.details
        edited.rawDeviceToken = #"a"b\c"#
        let editedLine = answeredLine(request, edited)
        #expect(try CaptureRecordDecoder.decode(Array(editedLine.dropLast())).rawDeviceToken == edited.rawDeviceToken)
    }
}
