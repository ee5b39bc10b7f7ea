import StrictJSON

/// A received value's UTF-8 compared with a known string, deciding as `String`'s `==` does.
///
/// The gateway checks a push's fixed values (`apns_env`, `type`, `title`, `body`,
/// `thread_id`) in their bytes instead of building a `String` for each. Equal bytes are
/// equal strings; but `==` also calls canonically equivalent text equal (U+212A KELVIN SIGN
/// equals "K"), so when the bytes differ and either side is not ASCII, the strings decide.
enum HermesText {
    /// `target` when `bytes` spell it (the caller then keeps the existing string), the
    /// decoded text when it is canonically equivalent to `target`, else nil.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>, equalTo target: String) -> String? {
        let sameBytes = target.withBorrowedUTF8 { equal(bytes, $0) }
        if sameBytes { return target }
        guard !isASCII(bytes) || !target.withBorrowedUTF8(isASCII) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return text == target ? text : nil
    }

    /// The case whose raw value `bytes` spell, as `Value(rawValue:)` finds it.
    static func enumCase<Value: RawRepresentable & CaseIterable>(_ bytes: UnsafeBufferPointer<UInt8>) -> Value?
    where Value.RawValue == String {
        for value in Value.allCases where value.rawValue.withBorrowedUTF8({ equal(bytes, $0) }) {
            return value
        }
        // The raw values are ASCII: only non-ASCII text can still be equivalent to one.
        return isASCII(bytes) ? nil : Value(rawValue: String(decoding: bytes, as: UTF8.self))
    }

    /// Whether `first` and `second` hold the same bytes. A loop: the values compared are
    /// a few dozen bytes, and differing lengths settle most comparisons.
    @inline(__always)
    static func equal(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        guard first.count == second.count else { return false }
        var index = 0
        while index < first.count {
            guard first[index] == second[index] else { return false }
            index += 1
        }
        return true
    }

    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        !bytes.contains { $0 >= 0x80 }
    }
}
