/// Derives `apns-collapse-id` from a push's type and session (contract §3).
///
/// A newer push of the same type for the same session replaces the older one on the
/// device, so a user sees one "Approval needed" per session, not a stack. APNs caps the
/// header at 64 bytes; a session id too long to fit is replaced by a 64-bit FNV-1a hash of
/// it, which keeps distinct sessions distinct without a crypto dependency.
///
/// ```swift
/// HermesCollapseID.make(type: .approval, sessionID: "sess-1")   // "approval:sess-1"
/// ```
public enum HermesCollapseID {
    /// APNs' limit on `apns-collapse-id`, in bytes.
    public static let maximumLength = 64

    /// The collapse id for a push of `type` about `sessionID`.
    public static func make(type: HermesPushType, sessionID: String) -> String {
        let readable = type.rawValue + ":" + sessionID
        if readable.utf8.count <= maximumLength { return readable }
        return type.rawValue + ":#" + hexDigits(fnv1a64(sessionID))
    }

    private static func fnv1a64(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func hexDigits(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
