/// Reads the topic list from Apple's topics extension (``AppleCertificateOID/topics``).
///
/// The value is DER: `SEQUENCE { UTF8String topic, SEQUENCE { UTF8String kind… }, … }`.
/// Only the top-level strings are topics; the nested sequences say what kind each is,
/// which the push type's topic suffix already tells us, so they are skipped.
enum CertificateTopicList {
    private static let sequenceTag: UInt8 = 0x30
    /// UTF8String, PrintableString and IA5String: the string types a topic may arrive as.
    private static let stringTags: Set<UInt8> = [0x0C, 0x13, 0x16]

    /// The topics in order, or nil when the DER is malformed.
    static func topics(fromDER bytes: [UInt8]) -> [String]? {
        var outer = DERReader(bytes: bytes, range: 0..<bytes.count)
        guard let (tag, content) = outer.next(), tag == sequenceTag, outer.isAtEnd else { return nil }
        var inner = DERReader(bytes: bytes, range: content)
        var topics: [String] = []
        while !inner.isAtEnd {
            guard let (tag, range) = inner.next() else { return nil }
            if stringTags.contains(tag) { topics.append(String(decoding: bytes[range], as: UTF8.self)) }
        }
        return topics
    }
}

/// Walks DER tag-length-value items within a range of bytes. Single-byte tags only,
/// which is all Apple's extensions use.
struct DERReader {
    let bytes: [UInt8]
    private var position: Int
    private let end: Int

    init(bytes: [UInt8], range: Range<Int>) {
        self.bytes = bytes
        position = range.lowerBound
        end = range.upperBound
    }

    var isAtEnd: Bool { position >= end }

    /// The next item's tag and content range; nil when the encoding is broken.
    mutating func next() -> (tag: UInt8, content: Range<Int>)? {
        guard position + 2 <= end else { return nil }
        let tag = bytes[position]
        let first = bytes[position + 1]
        position += 2
        var length = 0
        if first < 0x80 {
            length = Int(first)
        } else {
            // Long form: the low bits count the length bytes; four is ample for a certificate.
            let count = Int(first & 0x7F)
            guard count >= 1, count <= 4, position + count <= end else { return nil }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard length <= end - position else { return nil }
        let content = position..<(position + length)
        position += length
        return (tag, content)
    }
}
