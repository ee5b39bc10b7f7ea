internal import COpenSSL
import StrictJSON

/// The first 16 hex digits of a token's SHA-256: tells tokens apart in the capture
/// without storing bearer credentials.
enum TokenFingerprint {
    static let hexDigitCount = 16

    static func of(_ token: String) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        token.withBorrowedUTF8 { bytes in
            digest.withUnsafeMutableBufferPointer { output in
                _ = SHA256(bytes.baseAddress, bytes.count, output.baseAddress)
            }
        }
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(hexDigitCount)
        for byte in digest.prefix(hexDigitCount / 2) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
