import APNsCore
import HermesContract
import JWTVerify
import StrictJSON

/// Decides whether a parsed `/push` request may be sent, in the modes the gateway has on.
///
/// `hmac` is checked when the request carries one, else `capability`. A credential of a
/// disabled mode is refused (`auth_mode_disabled`), never silently ignored.
public struct PushAuthorizer: Sendable {
    public let modes: Set<GatewayAuthMode>
    private let hmacKey: HMACSHA256Key?
    private let capabilities: CapabilityIssuer?

    /// - Parameters:
    ///   - modes: the modes accepted.
    ///   - secrets: a mode without its secret accepts nothing.
    public init(modes: Set<GatewayAuthMode>, secrets: GatewaySecrets) {
        self.modes = modes
        hmacKey = secrets.hmacSecret.map { HMACSHA256Key($0) }
        capabilities = secrets.capabilityKey.map(CapabilityIssuer.init(key:))
    }

    /// The issuer `/register` uses; nil when capability mode is off.
    public var capabilityIssuer: CapabilityIssuer? { modes.contains(.capability) ? capabilities : nil }

    /// Nil when `request` is authorized, else the 403 code to answer with.
    public func refusal(for request: HermesPushRequest) -> HermesGatewayErrorCode? {
        if let hmac = request.hmac {
            guard modes.contains(.hmac), let hmacKey else { return .authModeDisabled }
            guard let received = Self.bytes(fromLowercaseHex: hmac),
                  hmacKey.isValidAuthenticationCode(received, for: request.canonicalBytes)
            else { return .invalidHMAC }
            return nil
        }
        if let capability = request.capability {
            guard let issuer = capabilityIssuer else { return .authModeDisabled }
            // The length first: one no issued capability has is refused without computing one.
            guard (1...HermesPushRequest.maximumCapabilityLength).contains(capability.utf8.count),
                  let token = DeviceToken(request.deviceToken), issuer.isValid(capability, for: token) else {
                return .invalidCapability
            }
            return nil
        }
        return .missingAuthorization
    }

    private static func bytes(fromLowercaseHex text: String) -> [UInt8]? {
        // Decoded from the string's bytes in place: stepping a String.UTF8View costs several
        // times as much per byte.
        text.withBorrowedUTF8 { bytes(fromLowercaseHex: $0) }
    }

    private static func bytes(fromLowercaseHex digits: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var valid = true
        let bytes = [UInt8](unsafeUninitializedCapacity: digits.count / 2) { buffer, initialized in
            for pair in 0..<digits.count / 2 {
                guard let high = nibble(digits[2 * pair]), let low = nibble(digits[2 * pair + 1]) else {
                    valid = false
                    return
                }
                buffer[pair] = high << 4 | low
                initialized += 1
            }
        }
        return valid ? bytes : nil
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }
}
