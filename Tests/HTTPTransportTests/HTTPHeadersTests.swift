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
        // The same on bytes read in place.
        #expect(Array("Apns-ID".utf8).equalsIgnoringASCIICase("apns-id".utf8))
        #expect(!Array("a@".utf8).equalsIgnoringASCIICase("a`".utf8))
        #expect(!Array("abc".utf8).equalsIgnoringASCIICase("ab".utf8))
    }
}

@Suite struct SocketAddressTests {
    @Test func parsesLiteralsAndKnowsTheUnspecifiedAddresses() throws {
        #expect(try SocketAddress(host: "::", port: 1).isUnspecified)
        #expect(try SocketAddress(host: "0.0.0.0", port: 1).isUnspecified)
        #expect(try !SocketAddress(host: "::1", port: 1).isUnspecified)
        #expect(try SocketAddress(host: "[::1]", port: 443).description == "[::1]:443")
        #expect(try SocketAddress(host: "127.0.0.1", port: 80).description == "127.0.0.1:80")
        #expect(throws: TransportError.self) { try SocketAddress(host: "127.0.0.1", port: 70000) }
    }
}
