import APNsCore
import Foundation
import StrictJSON

/// Which records a query or a wait is about. Every condition is optional; the ones set must
/// all hold. An empty filter matches every record.
///
/// ```swift
/// let rejectedForDevice = CaptureFilter(deviceToken: token, outcome: .rejected)
/// ```
public struct CaptureFilter: Sendable, Hashable {
    /// Whether APNs accepted the push.
    public enum Outcome: Sendable, Hashable {
        /// Status 200.
        case accepted
        /// Any other status.
        case rejected
    }

    /// The device token from the path.
    public var deviceToken: DeviceToken?
    /// The start of the device token's hex form, compared without regard to case: a person
    /// copies the first digits from a log or from a masked token (`abcd…`).
    public var deviceTokenPrefix: String? {
        didSet { deviceTokenPrefix = deviceTokenPrefix?.lowercased() }
    }
    /// The topic validation settled on, compared exactly.
    public var topic: String?
    public var outcome: Outcome?
    /// The reason answered; implies a rejection.
    public var reason: APNsReason?
    /// The `apns-id` answered, compared without regard to ASCII case as UUIDs are.
    public var apnsID: String?
    /// The `apns-unique-id` answered (sandbox only), compared as ``apnsID`` is.
    public var uniqueID: String?
    /// The push type the record settled on: `apns-push-type` as sent, or the type the mock
    /// inferred when none was sent.
    public var pushType: APNsPushType?
    /// The listener the push arrived on.
    public var environment: APNsEnvironment?
    /// Records received at or after this time.
    public var since: Date?
    /// Records received before this time (the interval is half-open, so consecutive
    /// windows never count a record twice).
    public var until: Date?
    /// Records numbered after this sequence number: what a reader following the store has
    /// not seen yet (the control API's `/pushes/live`).
    package var afterSequence: UInt64?

    /// Creates a filter; leave out the conditions that do not matter.
    public init(
        deviceToken: DeviceToken? = nil, topic: String? = nil, outcome: Outcome? = nil, reason: APNsReason? = nil,
        apnsID: String? = nil, since: Date? = nil, until: Date? = nil, deviceTokenPrefix: String? = nil,
        uniqueID: String? = nil, pushType: APNsPushType? = nil, environment: APNsEnvironment? = nil
    ) {
        self.deviceToken = deviceToken
        self.deviceTokenPrefix = deviceTokenPrefix?.lowercased()
        self.topic = topic
        self.outcome = outcome
        self.reason = reason
        self.apnsID = apnsID
        self.uniqueID = uniqueID
        self.pushType = pushType
        self.environment = environment
        self.since = since
        self.until = until
    }

    /// A filter that matches every record.
    public static let all = CaptureFilter()

    /// Whether `record` satisfies every condition set.
    public func matches(_ record: CaptureRecord) -> Bool {
        // The same bytes the ring matches, so that a record and its entry never disagree.
        var keys = TextBuffer(capacity: 256)
        var header = CaptureEntryHeader.writeKeys(of: record, into: &keys)
        header.sequence = record.sequence
        return keys.withUnsafeBytes { bytes in
            bytes.baseAddress.map { matches(CaptureEntryView(header: header, body: UnsafeRawPointer($0))) } ?? false
        }
    }

    /// Whether the entry `view` shows satisfies every condition set. Topics and device
    /// tokens compare byte for byte (a device token's stored form is lowercase).
    func matches(_ view: CaptureEntryView) -> Bool {
        if let afterSequence, view.sequence <= afterSequence { return false }
        if let deviceToken, !deviceToken.hex.withBorrowedUTF8({ Self.equal($0, view.deviceToken) }) { return false }
        if let deviceTokenPrefix, !deviceTokenPrefix.withBorrowedUTF8({ Self.isPrefix($0, of: view.deviceToken) }) { return false }
        if let environment, (environment == .production) != view.header.isProduction { return false }
        if let pushType, CaptureEntryHeader.pushTypeCode(pushType) != view.header.pushType { return false }
        if let topic, !topic.withBorrowedUTF8({ Self.equal($0, view.topic) }) { return false }
        if let outcome, (outcome == .accepted) != view.isAccepted { return false }
        if let reason, !reason.wireValue.withBorrowedUTF8({ Self.equal($0, view.reason) }) { return false }
        if let apnsID, !apnsID.withBorrowedUTF8({ CaptureHeaders.equalIgnoringASCIICase(view.apnsID, $0) }) { return false }
        if let uniqueID {
            guard let stored = view.uniqueID, uniqueID.withBorrowedUTF8({ CaptureHeaders.equalIgnoringASCIICase(stored, $0) }) else {
                return false
            }
        }
        if let since, view.receivedAtMicroseconds < CaptureRecord.clampedMicroseconds(since1970: since) { return false }
        if let until, view.receivedAtMicroseconds >= CaptureRecord.clampedMicroseconds(since1970: until) { return false }
        return true
    }

    private static func isPrefix(_ wanted: UnsafeBufferPointer<UInt8>, of stored: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let stored, stored.count >= wanted.count else { return false }
        return stored.prefix(wanted.count).elementsEqual(wanted)
    }

    private static func equal(_ wanted: UnsafeBufferPointer<UInt8>, _ stored: UnsafeBufferPointer<UInt8>?) -> Bool {
        guard let stored, stored.count == wanted.count else { return false }
        return stored.elementsEqual(wanted)
    }
}
