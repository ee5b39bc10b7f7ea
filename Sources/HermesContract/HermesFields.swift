import StrictJSON

/// The members of a JSON object body, read with the contract's errors.
///
/// A plugin's body is a flat object of short ASCII strings, so that shape is read by a
/// scanner that keeps byte ranges and builds no `JSONValue` tree or dictionary (the
/// gateway reads one per push). Anything else (escapes, non-ASCII, other value types,
/// nesting, duplicate keys, malformed input) goes to `JSONParser`, which then decides: the
/// scanner only ever accepts bodies the parser reads the same way, so the result is the
/// parser's either way.
///
/// Fields are named by `StaticString` and values handed out as UTF-8 bytes, so a reader
/// that only compares or checks a value (`apns_env`, `type`, `title`, …) never builds a
/// `String` for it.
struct HermesFields {
    private enum Storage {
        /// Key and value ranges (quotes excluded) into `bytes`.
        case flat(bytes: [UInt8], members: [(key: Range<Int>, value: Range<Int>)])
        case parsed([String: JSONValue])
    }

    private let storage: Storage

    /// More members than this are read by the general parser (duplicate checks are quadratic).
    private static let maximumFlatMembers = 16

    init(bytes: [UInt8]) throws(HermesRequestError) {
        if let members = Self.scanFlatObject(bytes) {
            storage = .flat(bytes: bytes, members: members)
            return
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: 8)
        } catch {
            // The problem and its offset only: the parser's message may quote the body (a
            // repeated key), and this error goes back to the sender in the gateway's answer.
            throw .malformedJSON("\(error.problem) at byte \(error.offset)")
        }
        guard case .object(let members) = value else { throw .notAnObject }
        storage = .parsed(members)
    }

    func requiredString(_ field: StaticString) throws(HermesRequestError) -> String {
        guard let value = try withUTF8(of: field, { $0.map { String(decoding: $0, as: UTF8.self) } }) else {
            throw .missingField(field.description)
        }
        return value
    }

    /// The value at `field` as `read` makes it from the string's UTF-8. Throws
    /// `missingField` when the field is absent or JSON `null`, `notAString` for any other
    /// type, and `invalidValue` with `reason` when `read` returns nil.
    func required<Value>(
        _ field: StaticString, unless reason: @autoclosure () -> String, _ read: (UnsafeBufferPointer<UInt8>) -> Value?
    ) throws(HermesRequestError) -> Value {
        guard let value = try optional(field, unless: reason(), read) else { throw .missingField(field.description) }
        return value
    }

    /// Like ``required(_:unless:_:)``, but nil when the field is absent or JSON `null`.
    func optional<Value>(
        _ field: StaticString, unless reason: @autoclosure () -> String, _ read: (UnsafeBufferPointer<UInt8>) -> Value?
    ) throws(HermesRequestError) -> Value? {
        let reading: Value?? = try withUTF8(of: field) { $0.map(read) }
        guard let reading else { return nil }
        guard let value = reading else { throw .invalidValue(field: field.description, reason: reason()) }
        return value
    }

    /// Calls `body` with the UTF-8 of the string at `field`, or with nil when the field is
    /// absent or JSON `null`; throws `notAString` for any other value.
    func withUTF8<Result>(
        of field: StaticString, _ body: (UnsafeBufferPointer<UInt8>?) -> Result
    ) throws(HermesRequestError) -> Result {
        switch storage {
        case let .flat(bytes, members):
            return bytes.withUnsafeBufferPointer { input in
                field.withUTF8Buffer { name in
                    for member in members where HermesText.equal(UnsafeBufferPointer(rebasing: input[member.key]), name) {
                        return body(UnsafeBufferPointer(rebasing: input[member.value]))
                    }
                    return body(nil)
                }
            }
        case let .parsed(members):
            switch members[field.description] {
            case nil, .null?: return body(nil)
            case .string(let text)?: return text.withBorrowedUTF8 { body($0) }
            default: throw .notAString(field.description)
            }
        }
    }

    /// The members of `bytes` when it is a flat object whose keys and values are all
    /// strings of printable ASCII without escapes, with no key twice; nil otherwise.
    static func scanFlatObject(_ bytes: [UInt8]) -> [(key: Range<Int>, value: Range<Int>)]? {
        bytes.withUnsafeBufferPointer { input -> [(key: Range<Int>, value: Range<Int>)]? in
            var index = 0
            func skipWhitespace() {
                while index < input.count, input[index] == 0x20 || input[index] == 0x0A || input[index] == 0x0D || input[index] == 0x09 {
                    index += 1
                }
            }
            func expect(_ byte: UInt8) -> Bool {
                guard index < input.count, input[index] == byte else { return false }
                index += 1
                return true
            }
            // A string of ASCII text without escapes; anything else is left to the parser.
            func plainString() -> Range<Int>? {
                guard expect(UInt8(ascii: "\"")), let base = input.baseAddress else { return nil }
                let start = index
                var skipped: UInt64 = 0
                index = JSONTextScan.firstSpecial(base, from: start, count: input.count, controlBelow: 0x20, skipped: &skipped)
                guard index < input.count, input[index] == UInt8(ascii: "\""), !JSONTextScan.sawNonASCII(skipped) else { return nil }
                index += 1
                return start..<(index - 1)
            }
            var members: [(key: Range<Int>, value: Range<Int>)] = []
            members.reserveCapacity(10)
            skipWhitespace()
            guard expect(UInt8(ascii: "{")) else { return nil }
            skipWhitespace()
            if !expect(UInt8(ascii: "}")) {
                while true {
                    guard members.count < maximumFlatMembers, let key = plainString() else { return nil }
                    skipWhitespace()
                    guard expect(UInt8(ascii: ":")) else { return nil }
                    skipWhitespace()
                    guard let value = plainString() else { return nil }
                    let keyBytes = UnsafeBufferPointer(rebasing: input[key])
                    for other in members where HermesText.equal(UnsafeBufferPointer(rebasing: input[other.key]), keyBytes) {
                        return nil
                    }
                    members.append((key, value))
                    skipWhitespace()
                    if expect(UInt8(ascii: ",")) {
                        skipWhitespace()
                        continue
                    }
                    guard expect(UInt8(ascii: "}")) else { return nil }
                    break
                }
            }
            skipWhitespace()
            return index == input.count ? members : nil
        }
    }
}
