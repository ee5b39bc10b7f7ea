import Foundation

/// How a `/push` request proves it may send to a device (contract §2.1).
public enum GatewayAuthMode: String, Sendable, Hashable, CaseIterable, Comparable {
    /// `hmac`: HMAC-SHA256 of the canonical string under a secret the plugin shares.
    case hmac
    /// `capability`: a string `/register` issued for the device token, derived from a
    /// gateway-only key (nothing is stored).
    case capability

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Parses `hmac,capability` (the `--auth-modes` flag and the config file's list).
    ///
    /// - Throws: ``GatewayConfigurationError`` for an unknown or empty list.
    public static func parseList(_ text: String) throws(GatewayConfigurationError) -> Set<GatewayAuthMode> {
        var modes: Set<GatewayAuthMode> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let mode = GatewayAuthMode(rawValue: name) else {
                throw GatewayConfigurationError("auth modes: unknown mode \"\(name)\"; expected hmac, capability or both (hmac,capability)")
            }
            modes.insert(mode)
        }
        return modes
    }
}
