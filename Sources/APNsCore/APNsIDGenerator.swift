import StrictJSON
import Synchronization

/// Makes lowercase, canonical UUIDs for `apns-id` and `apns-unique-id` quickly.
///
/// A random 64-bit prefix is drawn once; the rest is a counter with the RFC 4122 variant
/// bits. Ids are unique within a generator's life and cost no system call each, unlike
/// `UUID()`, whose `getrandom` per call is a visible share of a server's time per push.
public final class APNsIDGenerator: Sendable {
    private let high: UInt64
    private let counter = Atomic<UInt64>(0)

    public init() {
        var generator = SystemRandomNumberGenerator()
        // Version 4 bits, so the result reads as a random UUID everywhere.
        high = (generator.next() & 0xffff_ffff_ffff_0fff) | 0x0000_0000_0000_4000
    }

    /// The next id, such as `3f1c9a7e-51d2-4b0e-8000-00000000002a`.
    public func next() -> String {
        let low = (counter.wrappingAdd(1, ordering: .relaxed).oldValue & 0x3fff_ffff_ffff_ffff) | 0x8000_0000_0000_0000
        // 36 ASCII bytes in a stack tuple; String's ASCII fast path then copies them once.
        var text: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &text) { raw in
            var index = 0
            func put(_ value: UInt64, nibbles: Int) {
                var shift = (nibbles - 1) * 4
                while shift >= 0 {
                    let nibble = UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0xf
                    raw[index] = nibble < 10 ? nibble + 48 : nibble + 87
                    index += 1
                    shift -= 4
                }
            }
            func dash() {
                raw[index] = UInt8(ascii: "-")
                index += 1
            }
            put(high >> 32, nibbles: 8)
            dash()
            put(high >> 16, nibbles: 4)
            dash()
            put(high, nibbles: 4)
            dash()
            put(low >> 48, nibbles: 4)
            dash()
            put(low, nibbles: 12)
            return String(decoding: UnsafeRawBufferPointer(rebasing: raw[..<36]), as: UTF8.self)
        }
    }

    /// Whether `text` is a canonical UUID: 8-4-4-4-12 hex digits, as `apns-id` requires.
    ///
    /// Both cases are accepted; APNs documents lowercase and clients send either.
    public static func isCanonicalUUID(_ text: String) -> Bool {
        // Over the contiguous bytes (stepping through `String.UTF8View` costs several times
        // more per byte): the client checks every push's id, and the mock every id it is sent.
        text.withBorrowedUTF8 { bytes in
            guard bytes.count == 36 else { return false }
            for (index, byte) in bytes.enumerated() {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard byte == UInt8(ascii: "-") else { return false }
                } else {
                    let folded = byte | 0x20
                    guard (byte >= 48 && byte <= 57) || (folded >= 97 && folded <= 102) else { return false }
                }
            }
            return true
        }
    }
}
