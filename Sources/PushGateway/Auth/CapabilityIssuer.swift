import APNsCore
import Foundation
import JWTVerify

/// Issues and checks device capabilities without storing anything (contract §2.2).
///
/// A capability is `v1.` + base64url(HMAC-SHA256(key, "hermes-capability-v1:" + token)),
/// over the lowercase device token. Checking recomputes it and compares in constant time,
/// so a gateway restart or a second replica accepts what another issued, and rotating the
/// key makes every old capability stale (the plugin re-registers once on 403).
///
/// ```swift
/// let issuer = CapabilityIssuer(key: Array("a gateway-only key, 32 bytes.....".utf8))
/// let capability = try issuer.capability(for: token)
/// issuer.isValid(capability, for: token)     // true
/// ```
public struct CapabilityIssuer: Sendable {
    /// The version prefix; a future derivation gets a new one.
    public static let prefix = "v1."
    /// Domain separation: the key signs nothing else under this label.
    public static let label = "hermes-capability-v1:"

    private let key: HMACSHA256Key

    /// - Parameter key: the gateway's capability key (`PUSH_GATEWAY_CAPABILITY_KEY`).
    public init(key: [UInt8]) {
        self.key = HMACSHA256Key(key)
    }

    /// The capability for `token`.
    ///
    /// - Throws: `CryptoError` only if OpenSSL fails, not for any input.
    public func capability(for token: DeviceToken) throws(CryptoError) -> String {
        let tag = try key.authenticationCode(for: Array((Self.label + token.hex).utf8))
        return Self.prefix + Self.base64URL(tag)
    }

    /// Whether `capability` was issued for `token` under this key; constant time in its content.
    public func isValid(_ capability: String, for token: DeviceToken) -> Bool {
        guard let expected = try? self.capability(for: token) else { return false }
        return ConstantTime.equals(Array(expected.utf8), Array(capability.utf8))
    }

    private static func base64URL(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        text = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
