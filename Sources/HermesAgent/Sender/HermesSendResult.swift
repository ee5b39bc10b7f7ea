import APNsCore
import HermesContract

/// The result of pushing one trigger to one device, safe to log: the device token is
/// masked, and neither the capability, the HMAC nor the secret appears.
public struct HermesSendResult: Sendable, Hashable, CustomStringConvertible {
    /// The device token with all but its first and last four digits hidden.
    public var maskedDeviceToken: String
    /// The push type.
    public var type: HermesPushType
    /// The session.
    public var sessionID: String
    /// What happened.
    public var outcome: Outcome
    /// `/push` requests made (retries and the post-403 retry included).
    public var pushAttempts: Int
    /// `/register` requests made.
    public var registerAttempts: Int
    /// Whether a 403 made the sender drop its capability and register again.
    public var refreshedCapability: Bool

    /// How a send ended.
    public enum Outcome: Sendable, Hashable {
        /// The gateway answered 2xx: APNs accepted it.
        case delivered
        /// The gateway answered 410: the device is gone and was pruned from the store.
        case pruned
        /// The gateway refused it (400, a 403 that a refresh did not cure, another 4xx);
        /// retrying would not help. `code` is the gateway's `error` member, if any.
        case rejected(status: Int, code: String?)
        /// No 2xx after the bounded retries: the gateway was unreachable or kept failing.
        case failed(String)
    }

    init(deviceToken: String, type: HermesPushType, sessionID: String) {
        self.maskedDeviceToken = DeviceToken(deviceToken)?.masked ?? "(invalid token)"
        self.type = type
        self.sessionID = sessionID
        self.outcome = .failed("not sent")
        self.pushAttempts = 0
        self.registerAttempts = 0
        self.refreshedCapability = false
    }

    /// One line: `approval sess-1 → abab…abab: delivered (attempts 1)`.
    public var description: String {
        let what: String = switch outcome {
        case .delivered: "delivered"
        case .pruned: "device gone (410), pruned"
        case .rejected(let status, let code): "rejected \(status)" + (code.map { " \($0)" } ?? "")
        case .failed(let detail): "failed: \(detail)"
        }
        var line = "\(type.rawValue) \(sessionID) -> \(maskedDeviceToken): \(what) (attempts \(pushAttempts)"
        if registerAttempts > 0 { line += ", register \(registerAttempts)" }
        if refreshedCapability { line += ", capability refreshed" }
        return line + ")"
    }
}
