import Testing
@testable import HTTPTransport

@Suite struct HeaderBlockBuilderTests {
    private func fields(_ builder: HeaderBlockBuilder) -> [String] {
        builder.withPairs { pairs, count in
            (0..<count).map { index in
                guard let pair = pairs?[index] else { return "" }
                let name = String(decoding: UnsafeBufferPointer(start: pair.name, count: pair.namelen), as: UTF8.self)
                let value = String(decoding: UnsafeBufferPointer(start: pair.value, count: pair.valuelen), as: UTF8.self)
                return "\(name): \(value)"
            }
        }
    }

    @Test func lowercasesNamesAndDropsConnectionSpecificFields() {
        let builder = HeaderBlockBuilder()
        builder.appendTrusted(name: ":status", value: "200")
        builder.append(name: "APNs-ID", value: "Mixed-Case-Value")
        builder.append(name: "Connection", value: "close")
        builder.append(name: "Transfer-Encoding", value: "chunked")
        builder.append(name: "content-length", value: "99")
        builder.append(name: "x-after", value: "kept")
        #expect(fields(builder) == [":status: 200", "apns-id: Mixed-Case-Value", "x-after: kept"])
    }

    @Test func growsAndResetsWithoutMixingBlocks() {
        let builder = HeaderBlockBuilder()
        let long = String(repeating: "v", count: 5000)
        for index in 0..<40 { builder.append(name: "x-\(index)", value: long) }
        let first = fields(builder)
        #expect(first.count == 40)
        #expect(first.allSatisfy { $0.hasSuffix(long) })
        #expect(first[39].hasPrefix("x-39: "))
        builder.reset()
        builder.appendTrusted(name: ":status", value: "404")
        #expect(fields(builder) == [":status: 404"])
    }

    @Test func marksOnlyTheUnindexedNamesWhateverTheirCase() {
        let builder = HeaderBlockBuilder(unindexedNames: ["APNS-ID"])
        builder.appendTrusted(name: ":path", value: "/")
        builder.append(name: "APNs-ID", value: "1")
        builder.append(name: "apns-id-suffix", value: "2")
        builder.append(name: "apns-topic", value: "3")
        let flags = builder.withPairs { pairs, count in (0..<count).map { pairs?[$0].flags ?? 0xff } }
        #expect(flags == [0, 1, 0, 0])  // NGHTTP2_NV_FLAG_NO_INDEX is 1
    }
}
