internal import CNGHTTP2

/// Lays out an HTTP/2 header block as the C `nghttp2_nv` array nghttp2 submits.
///
/// One builder lives per session and is reused for every message, so building a header
/// block allocates nothing once the scratch space has grown. Names are lowercased, and
/// fields HTTP/2 forbids (RFC 9113 section 8.2.2) are dropped. Fields named in
/// `unindexedNames` are marked so that HPACK sends them as never-indexed literals.
/// Loop-confined.
final class HeaderBlockBuilder {
    private var bytes: UnsafeMutableRawBufferPointer
    private var byteCount = 0
    /// (name offset, name length, value offset, value length, nghttp2 flags) per field.
    private var spans: [(Int, Int, Int, Int, UInt8)] = []
    private var pairs: UnsafeMutableBufferPointer<nghttp2_nv>
    private let unindexedNames: [[UInt8]]

    /// - Parameter unindexedNames: names of fields never added to the HPACK table, in any case.
    init(unindexedNames: [String] = []) {
        self.unindexedNames = unindexedNames.map { Array($0.lowercased().utf8) }
        bytes = .allocate(byteCount: 1024, alignment: 1)
        pairs = .allocate(capacity: 16)
    }

    deinit {
        bytes.deallocate()
        pairs.deallocate()
    }

    /// Starts a new header block.
    func reset() {
        byteCount = 0
        spans.removeAll(keepingCapacity: true)
    }

    /// Adds a field whose name is known to be lowercase and allowed, such as `:status`.
    func appendTrusted(name: StaticString, value: String) {
        let nameStart = byteCount
        append(UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        let valueStart = byteCount
        append(value)
        spans.append((nameStart, name.utf8CodeUnitCount, valueStart, byteCount - valueStart, Self.indexed))
    }

    /// Adds a caller's field: the name is lowercased; connection-specific fields are skipped.
    func append(name: String, value: String) {
        let nameStart = byteCount
        append(name)
        let nameLength = byteCount - nameStart
        let name = UnsafeMutableRawBufferPointer(rebasing: bytes[nameStart..<byteCount])
        for index in name.indices where name[index] >= UInt8(ascii: "A") && name[index] <= UInt8(ascii: "Z") {
            name[index] |= 0x20
        }
        if Self.isConnectionSpecific(UnsafeRawBufferPointer(name)) {
            byteCount = nameStart
            return
        }
        let isUnindexed = unindexedNames.contains { $0.count == name.count && $0.elementsEqual(name) }
        let valueStart = byteCount
        append(value)
        spans.append((nameStart, nameLength, valueStart, byteCount - valueStart, isUnindexed ? Self.unindexed : Self.indexed))
    }

    private static let indexed = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
    private static let unindexed = UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)

    /// Calls `body` with the `nghttp2_nv` array; valid only inside `body`.
    ///
    /// nghttp2 copies names and values when a message is submitted, so that is enough.
    func withPairs<R>(_ body: (UnsafeMutablePointer<nghttp2_nv>?, Int) -> R) -> R {
        if spans.count > pairs.count {
            pairs.deallocate()
            pairs = .allocate(capacity: spans.count * 2)
        }
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return body(nil, 0) }
        for (index, span) in spans.enumerated() {
            pairs[index] = nghttp2_nv(name: base + span.0, value: base + span.2, namelen: span.1, valuelen: span.3,
                                      flags: span.4)
        }
        return body(pairs.baseAddress, spans.count)
    }

    private func reserve(_ extra: Int) {
        guard byteCount + extra > bytes.count else { return }
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count * 2, byteCount + extra), alignment: 1)
        grown.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[..<byteCount]))
        bytes.deallocate()
        bytes = grown
    }

    private func append(_ raw: UnsafeRawBufferPointer) {
        reserve(raw.count)
        UnsafeMutableRawBufferPointer(rebasing: bytes[byteCount...]).copyMemory(from: raw)
        byteCount += raw.count
    }

    private func append(_ text: String) {
        var text = text
        text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    private static let forbidden: [[UInt8]] = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "content-length", "host", "te",
    ].map { Array($0.utf8) }

    /// Fields that belong to HTTP/1.1 connections, or that the transport sets itself.
    static func isConnectionSpecific(_ name: UnsafeRawBufferPointer) -> Bool {
        forbidden.contains { $0.count == name.count && $0.elementsEqual(name) }
    }
}
