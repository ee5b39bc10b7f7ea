import APNsCore
import Foundation

/// One push to one device: the APNs headers and the JSON payload.
///
/// ```swift
/// let notification = APNsNotification(
///     deviceToken: "a1b2…", pushType: .alert, topic: "com.example.app",
///     payload: Array(#"{"aps":{"alert":"Hello"}}"#.utf8))
/// ```
///
/// The client checks only what it must to build a well-formed request (a token that fits
/// in the path, header values without line breaks, a canonical `apns-id`); everything else
/// is APNs' decision and comes back as a typed rejection.
public struct APNsNotification: Sendable, Hashable {
    /// The device token as hex digits (any length; APNs answers `BadDeviceToken` if wrong).
    public var deviceToken: String
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// `apns-topic`: the bundle ID plus the push type's suffix. Nil omits the header, which
    /// only certificate authentication allows.
    ///
    /// - Important: each push type needs its own suffix, such as `.voip`; see `APNsPushType.topicSuffix`.
    public var topic: String?
    /// `apns-priority`; nil sends the push type's usual one (``effectivePriority``).
    public var priority: APNsPriority?
    /// `apns-expiration`; nil omits it (APNs then stores the push for a while).
    public var expiration: APNsExpiration?
    /// `apns-collapse-id`: pushes with the same one replace each other on the device (64 bytes at most).
    public var collapseID: String?
    /// `apns-id`, a canonical UUID; nil lets the client make one. Every attempt of the push carries it.
    public var apnsID: String?
    /// The JSON payload, sent as is.
    public var payload: [UInt8]

    /// The `apns-priority` sent: ``priority``, or without one 5 (`consideringDevicePower`)
    /// for a background push, which APNs refuses at 10 (the priority an absent header
    /// means), and 10 otherwise, as APNSwift chooses.
    public var effectivePriority: APNsPriority {
        priority ?? (pushType == .background ? .consideringDevicePower : .immediately)
    }

    /// A notification with the payload as JSON bytes.
    ///
    /// - Parameters:
    ///   - deviceToken: hex digits.
    ///   - pushType: `apns-push-type`; `.alert` by default.
    ///   - topic: `apns-topic`, such as the bundle ID.
    ///   - priority: `apns-priority`, or nil for the push type's usual one (``effectivePriority``).
    ///   - expiration: `apns-expiration`, or nil to omit.
    ///   - collapseID: `apns-collapse-id`, or nil to omit.
    ///   - apnsID: `apns-id`, or nil for a generated one.
    ///   - payload: the JSON body.
    public init(
        deviceToken: String, pushType: APNsPushType = .alert, topic: String?, priority: APNsPriority? = nil,
        expiration: APNsExpiration? = nil, collapseID: String? = nil, apnsID: String? = nil, payload: [UInt8]
    ) {
        self.deviceToken = deviceToken
        self.pushType = pushType
        self.topic = topic
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.apnsID = apnsID
        self.payload = payload
    }

    /// A notification whose payload is `payload` encoded as JSON.
    ///
    /// ```swift
    /// struct Payload: Encodable { struct APS: Encodable { var alert: String }; var aps: APS }
    /// let notification = try APNsNotification(
    ///     deviceToken: token, topic: "com.example.app", payload: Payload(aps: .init(alert: "Hello")))
    /// ```
    ///
    /// - Throws: `APNsClientError.invalidRequest` when `payload` cannot be encoded.
    public init(
        deviceToken: String, pushType: APNsPushType = .alert, topic: String?, priority: APNsPriority? = nil,
        expiration: APNsExpiration? = nil, collapseID: String? = nil, apnsID: String? = nil, payload: some Encodable
    ) throws(APNsClientError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(payload))
        } catch {
            throw .invalidRequest("the payload cannot be encoded as JSON: \(error)")
        }
        self.init(deviceToken: deviceToken, pushType: pushType, topic: topic, priority: priority, expiration: expiration,
                  collapseID: collapseID, apnsID: apnsID, payload: bytes)
    }

    /// Checks what the client needs to build the request; the rest is left to APNs.
    func validateForSending() throws(APNsClientError) {
        guard !deviceToken.isEmpty else { throw .invalidRequest("the device token is empty") }
        // Checked on the contiguous bytes: this runs for every push sent.
        var token = deviceToken
        let isPathSafe = token.withUTF8 { bytes in
            bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    true
                default: false
                }
            }
        }
        guard isPathSafe else {
            throw .invalidRequest("the device token must be hex digits; found characters that do not fit a URL path")
        }
        if let apnsID, !APNsIDGenerator.isCanonicalUUID(apnsID) {
            throw .invalidRequest("apns-id '\(apnsID)' is not a canonical UUID (8-4-4-4-12 hex digits)")
        }
        if let problem = Self.headerValueProblem(topic) {
            throw .invalidRequest("\(APNsHeaderName.topic) \(problem)")
        }
        if let problem = Self.headerValueProblem(collapseID) {
            throw .invalidRequest("\(APNsHeaderName.collapseID) \(problem)")
        }
    }

    /// Why `value` cannot be sent as an HTTP/2 header value, if it cannot: a control
    /// character, or white space at either end (RFC 9113 §8.2.1), which the server would
    /// answer by resetting the stream rather than with an APNs reason.
    private static func headerValueProblem(_ value: String?) -> String? {
        guard var value else { return nil }
        return value.withUTF8 { bytes in
            if bytes.contains(where: { $0 < 0x20 || $0 == 0x7f }) {
                return "contains control characters, which a header cannot carry"
            }
            if bytes.first == UInt8(ascii: " ") || bytes.last == UInt8(ascii: " ") {
                return "starts or ends with a space, which a header value cannot"
            }
            return nil
        }
    }
}
