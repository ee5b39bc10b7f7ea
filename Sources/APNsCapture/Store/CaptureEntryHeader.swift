import APNsCore
import StrictJSON

/// The fixed part of a captured entry as the ring stores it: the sequence number, the time,
/// and how many bytes each variable part takes. In the ring's arena an entry is this header,
/// then its key bytes (device token, topic, reason, apns-id, apns-unique-id), then its line's tail
/// (``CaptureRecordEncoder/writeTail(_:into:)``), padded to ``alignment``.
///
/// The keys are bytes rather than `String`s so that an entry holds no references: storing
/// one is a copy, and dropping one frees nothing (``CaptureRing``).
struct CaptureEntryHeader: BitwiseCopyable {
    /// Where headers start in the arena; every entry's size is rounded up to it.
    static let alignment = MemoryLayout<CaptureEntryHeader>.alignment
    /// A key the record does not have (no device token, no topic, accepted).
    static let absent: Int32 = -1

    var sequence: UInt64 = 0
    var receivedAtMicroseconds: Int64
    var tailCount = 0
    var deviceTokenCount: Int32
    var topicCount: Int32
    var reasonCount: Int32
    var apnsIDCount: Int32
    var uniqueIDCount: Int32
    var isAccepted: Bool
    /// The status answered (0 when a fault rule reset the stream or closed the connection).
    var status: UInt16
    /// Whether a fault rule, not validation, decided the answer.
    var isInjected: Bool
    /// Whether the push arrived on the production listener (else sandbox).
    var isProduction: Bool
    /// ``pushTypeCode(_:)`` of the record's push type.
    var pushType: UInt8

    /// Appends the filter keys of `record` to `buffer` and returns the header that
    /// describes them; the caller appends the tail next and sets ``tailCount``.
    static func writeKeys(of record: CaptureRecord, into buffer: inout TextBuffer) -> CaptureEntryHeader {
        let outcome = record.outcome
        return CaptureEntryHeader(
            receivedAtMicroseconds: record.receivedAtMicroseconds,
            deviceTokenCount: append(record.deviceToken?.hex, to: &buffer),
            topicCount: append(record.topic, to: &buffer),
            reasonCount: append(outcome.reason?.wireValue, to: &buffer),
            apnsIDCount: append(outcome.apnsID, to: &buffer),
            uniqueIDCount: append(outcome.uniqueID, to: &buffer),
            isAccepted: outcome.isAccepted, status: UInt16(clamping: outcome.status), isInjected: outcome.isInjected,
            isProduction: record.environment == .production,
            pushType: pushTypeCode(record.pushType))
    }

    /// 0 for none, else 1 + the type's position in `APNsPushType.allCases`: a byte the ring
    /// can hold and compare.
    static func pushTypeCode(_ type: APNsPushType?) -> UInt8 {
        guard let type, let index = APNsPushType.allCases.firstIndex(of: type) else { return 0 }
        return UInt8(truncatingIfNeeded: index + 1)
    }

    private static func append(_ text: String?, to buffer: inout TextBuffer) -> Int32 {
        guard let text else { return absent }
        let before = buffer.count
        buffer.append(text)
        return Int32(clamping: buffer.count - before)
    }

    /// Bytes of the keys, between the header and the tail.
    var keysCount: Int {
        Int(max(deviceTokenCount, 0)) + Int(max(topicCount, 0)) + Int(max(reasonCount, 0)) + Int(apnsIDCount)
            + Int(max(uniqueIDCount, 0))
    }

    /// Bytes the entry takes in the arena: header, keys and tail, rounded up to ``alignment``.
    var storedSize: Int {
        let size = MemoryLayout<CaptureEntryHeader>.stride + keysCount + tailCount
        return (size + Self.alignment - 1) & ~(Self.alignment - 1)
    }
}
