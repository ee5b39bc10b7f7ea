@testable import APNsCapture
import APNsCore
import Foundation
import StrictJSON
import Testing

/// The store copies the `token` object of a token it wrote recently instead of encoding it
/// again: what it writes must be what encoding afresh writes, token by token.
@Suite struct CaptureTokenCacheTests {
    static func record(fingerprint: String, iat: Int64, header: JSONValue = ["alg": "ES256", "kid": "ABC123DEFG"]) -> CaptureRecord {
        var record = CaptureFixtures.fullRecord()
        record.token = CaptureTokenInfo(header: header, claims: ["iss": "DEF123GHIJ", "iat": .integer(iat)], fingerprint: fingerprint)
        return record
    }

    @Test func linesWithACachedTokenAreTheLinesEncodedAfresh() throws {
        // The same token many times, tokens that share a fingerprint but not their claims
        // or header (only records built by hand do), more tokens than the cache keeps.
        var records: [CaptureRecord] = []
        for round in 0..<3 {
            for index in 0..<(CaptureTokenCache.capacity + 3) {
                records.append(Self.record(fingerprint: "fp\(index)", iat: 1_800_000_000 + Int64(index)))
            }
            records.append(Self.record(fingerprint: "fp0", iat: 1_900_000_000 + Int64(round)))
            records.append(Self.record(fingerprint: "fp0", iat: 1_800_000_000, header: ["alg": "ES256", "kid": .string("OTHER\(round)")]))
            records.append(Self.record(fingerprint: "fp0", iat: 1_800_000_000))
        }
        let store = CaptureStore(capacity: records.count)
        for record in records { store.record(record) }
        let entries = store.entries(matching: .all, limit: nil)
        #expect(entries.count == records.count)
        for (index, entry) in entries.enumerated() {
            var written: [UInt8] = []
            entry.write(into: &written)
            var expected = records[index]
            expected.sequence = entry.sequence
            // The same JSON: members of `token.header` and `token.claims` come in no
            // particular order, and two equal dictionaries need not list theirs alike.
            #expect(try JSONParser.parse(Array(written.dropLast())) == JSONParser.parse(Array(CaptureRecordEncoder.line(expected).dropLast())),
                    "record \(index)")
            #expect(try entry.record() == expected, "record \(index)")
        }
    }

    @Test func aTokenWithoutFingerprintIsEncodedEveryTime() {
        let cache = CaptureTokenCache()
        let token = CaptureTokenInfo(header: ["alg": "ES256"])
        cache.insert(token, bytes: Array("{}".utf8))
        #expect(cache.encoded(token) == nil)
        let fingerprinted = CaptureTokenInfo(header: ["alg": "ES256"], fingerprint: "0123456789abcdef")
        cache.insert(fingerprinted, bytes: Array("{x}".utf8))
        #expect(cache.encoded(fingerprinted) == Array("{x}".utf8))
        #expect(cache.encoded(CaptureTokenInfo(header: ["alg": "none"], fingerprint: "0123456789abcdef")) == nil)
    }
}
