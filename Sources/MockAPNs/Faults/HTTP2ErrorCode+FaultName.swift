import HTTPTransport

extension HTTP2ErrorCode {
    /// RFC 9113 section 7 names, as fault rules spell them in JSON (`"error_code":"CANCEL"`).
    private static let namesByCode: [UInt32: String] = [
        0x0: "NO_ERROR", 0x1: "PROTOCOL_ERROR", 0x2: "INTERNAL_ERROR", 0x3: "FLOW_CONTROL_ERROR",
        0x4: "SETTINGS_TIMEOUT", 0x5: "STREAM_CLOSED", 0x6: "FRAME_SIZE_ERROR", 0x7: "REFUSED_STREAM",
        0x8: "CANCEL", 0x9: "COMPRESSION_ERROR", 0xa: "CONNECT_ERROR", 0xb: "ENHANCE_YOUR_CALM",
        0xc: "INADEQUATE_SECURITY", 0xd: "HTTP_1_1_REQUIRED",
    ]

    private static let codesByName: [String: UInt32] = Dictionary(
        uniqueKeysWithValues: namesByCode.map { ($0.value, $0.key) })

    /// Every RFC 9113 name, in code order, for error messages.
    static var faultNames: [String] { namesByCode.keys.sorted().compactMap { namesByCode[$0] } }

    /// The code for an RFC 9113 name such as `REFUSED_STREAM`.
    init?(faultName: String) {
        guard let code = Self.codesByName[faultName] else { return nil }
        self.init(rawValue: code)
    }

    /// The RFC 9113 name, or nil for a code the RFC does not define.
    var faultName: String? { Self.namesByCode[rawValue] }
}
