internal import CNGHTTP2

extension HTTP2ErrorCode {
    /// The RFC 9113 name, such as `CANCEL`, with the number for codes nghttp2 does not know.
    var wireName: String {
        let name = String(cString: nghttp2_http2_strerror(rawValue))
        return name == "unknown" ? "0x\(String(rawValue, radix: 16))" : "\(name) (0x\(String(rawValue, radix: 16)))"
    }
}
