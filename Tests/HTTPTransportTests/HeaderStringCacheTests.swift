@testable import HTTPTransport
import Testing

/// Reused strings must always be the bytes of the current request, never the previous one's.
struct HeaderStringCacheTests {
    static func with<Result>(_ text: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        text.withUnsafeBufferPointer(body)
    }

    @Test func repeatedBytesGiveTheSameTextAndChangedBytesTheNewText() {
        var cache = HeaderStringCache()
        let token = Array("bearer \(String(repeating: "x", count: 200))".utf8)
        let other = Array("bearer \(String(repeating: "y", count: 200))".utf8)
        for round in 0..<3 {
            let bytes = round == 1 ? other : token
            #expect(Self.with(bytes) { cache.value($0, index: 2) } == String(decoding: bytes, as: UTF8.self))
            #expect(Self.with(Array("authorization".utf8)) { cache.name($0, index: 2) } == "authorization")
        }
        // Same length, one byte different; empty; and a position past the remembered ones.
        #expect(Self.with(Array("/3/device/aa".utf8)) { cache.pseudoValue($0, slot: .path) } == "/3/device/aa")
        #expect(Self.with(Array("/3/device/ab".utf8)) { cache.pseudoValue($0, slot: .path) } == "/3/device/ab")
        #expect(Self.with([]) { cache.value($0, index: 3) } == "")
        #expect(Self.with(Array("x".utf8)) { cache.value($0, index: 3) } == "x")
        #expect(Self.with(Array("late".utf8)) { cache.value($0, index: HeaderStringCache.regularHeaderCount + 5) } == "late")
    }

    @Test func slotsAreIndependentAndLongOrInvalidValuesStayCorrect() {
        var cache = HeaderStringCache()
        #expect(Self.with(Array("one".utf8)) { cache.value($0, index: 0) } == "one")
        #expect(Self.with(Array("two".utf8)) { cache.value($0, index: 1) } == "two")
        #expect(Self.with(Array("one".utf8)) { cache.name($0, index: 0) } == "one")
        #expect(Self.with(Array("two".utf8)) { cache.value($0, index: 0) } == "two")
        let long = [UInt8](repeating: UInt8(ascii: "z"), count: HeaderStringCache.maximumLength + 1)
        for _ in 0..<2 { #expect(Self.with(long) { cache.value($0, index: 4) } == String(decoding: long, as: UTF8.self)) }
        // Invalid UTF-8 is repaired the same way every time, and never matches other bytes.
        let invalid: [UInt8] = [0x61, 0xFF, 0x62]
        for _ in 0..<2 { #expect(Self.with(invalid) { cache.value($0, index: 5) } == "a\u{FFFD}b") }
        #expect(Self.with(Array("a\u{FFFD}b".utf8)) { cache.value($0, index: 5) } == "a\u{FFFD}b")
    }
}
