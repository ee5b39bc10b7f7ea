import StrictJSON

/// The members of a JSON object body, read with the contract's errors.
///
/// A plugin's body is a flat object of short ASCII strings, so that shape is read by a
/// scanner that keeps byte ranges and builds no `JSONValue` tree or dictionary (the
/// gateway reads one per push). Anything else (escapes, non-ASCII, other value types,
/// nesting, duplicate keys, malformed input) goes to `JSONParser`, which then decides
/// exactly as it always did: the scanner only ever accepts bodies the parser reads the
/// same way.
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
            throw .malformedJSON(error.description)
        }
        guard case .object(let members) = value else { throw .notAnObject }
        storage = .parsed(members)
    }

    func requiredString(_ field: String) throws(HermesRequestError) -> String {
        guard let value = try optionalString(field) else { throw .missingField(field) }
        return value
    }

    /// The string at `field`; nil when absent or JSON `null`.
    func optionalString(_ field: String) throws(HermesRequestError) -> String? {
        switch storage {
        case let .flat(bytes, members):
            var field = field
            return field.withUTF8 { name -> String? in
                for member in members where member.key.count == name.count
                    && bytes[member.key].elementsEqual(name) {
                    return String(decoding: bytes[member.value], as: UTF8.self)
                }
                return nil
            }
        case let .parsed(members):
            switch members[field] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .notAString(field)
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
                    for other in members where input[other.key].elementsEqual(input[key]) { return nil }
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
