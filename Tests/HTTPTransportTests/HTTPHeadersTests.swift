import Testing
@testable import HTTPTransport

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndKeepsWireOrderWithDuplicates() {
        var headers: HTTPHeaders = ["Apns-Topic": "com.example.app", "apns-topic": "com.example.other"]
        headers.add(name: "X-Extra", value: "1")
        #expect(headers["APNS-TOPIC"] == "com.example.app")
        #expect(headers.values(for: "apns-topic") == ["com.example.app", "com.example.other"])
        #expect(headers.fields.map(\.name) == ["Apns-Topic", "apns-topic", "X-Extra"])
        headers.replaceOrAdd(name: "apns-topic", value: "only")
        #expect(headers.values(for: "apns-topic") == ["only"])
        #expect(headers["missing"] == nil)
    }

    @Test func caseInsensitiveComparisonOnlyFoldsLetters() {
        #expect("Content-Length".equalsIgnoringASCIICase("content-length"))
        #expect(!"a[".equalsIgnoringASCIICase("a{"))
        #expect(!"abc".equalsIgnoringASCIICase("abcd"))
    }
}
