/// One entry read in place, from the ring's arena or from the buffer a push was just encoded
/// into: valid only while that memory is (under the store's lock, or during the push).
///
/// Unchecked `Sendable`: it is only ever read, and only while its memory stays put, which
/// the store's lock ensures; keeping it takes a copy (``CaptureEntry``).
struct CaptureEntryView: @unchecked Sendable {
    let header: CaptureEntryHeader
    /// The key bytes, followed by the tail.
    let body: UnsafeRawPointer

    var sequence: UInt64 { header.sequence }
    var receivedAtMicroseconds: Int64 { header.receivedAtMicroseconds }
    var isAccepted: Bool { header.isAccepted }

    /// The lowercase hex device token, or nil when the record has none.
    var deviceToken: UnsafeBufferPointer<UInt8>? { bytes(at: 0, count: header.deviceTokenCount) }
    var topic: UnsafeBufferPointer<UInt8>? { bytes(at: Self.skip(header.deviceTokenCount), count: header.topicCount) }
    /// The reason's wire value, or nil for an accepted push.
    var reason: UnsafeBufferPointer<UInt8>? {
        bytes(at: Self.skip(header.deviceTokenCount) + Self.skip(header.topicCount), count: header.reasonCount)
    }
    var apnsID: UnsafeBufferPointer<UInt8> {
        let offset = Self.skip(header.deviceTokenCount) + Self.skip(header.topicCount) + Self.skip(header.reasonCount)
        return bytes(at: offset, count: header.apnsIDCount) ?? UnsafeBufferPointer(start: nil, count: 0)
    }

    /// `apns-unique-id`, or nil when the answer had none (production).
    var uniqueID: UnsafeBufferPointer<UInt8>? {
        let offset = Self.skip(header.deviceTokenCount) + Self.skip(header.topicCount) + Self.skip(header.reasonCount)
            + Int(header.apnsIDCount)
        return bytes(at: offset, count: header.uniqueIDCount)
    }

    /// The line after `{"v":2,"seq":N,`, through its newline.
    var tail: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: (body + header.keysCount).assumingMemoryBound(to: UInt8.self), count: header.tailCount)
    }

    private static func skip(_ count: Int32) -> Int { Int(max(count, 0)) }

    private func bytes(at offset: Int, count: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard count != CaptureEntryHeader.absent else { return nil }
        return UnsafeBufferPointer(start: (body + offset).assumingMemoryBound(to: UInt8.self), count: Int(count))
    }
}
