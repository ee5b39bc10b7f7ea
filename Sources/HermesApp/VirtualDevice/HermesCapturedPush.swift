import Foundation

/// Reads the mock control API's `{"pushes":[record,…]}` answers (docs/capture-format.md,
/// versions 2 and 1): only the members the virtual device needs, tolerating any others.
///
/// Foundation only, so that the app module builds on Apple platforms; the suite's own reader
/// is APNsCapture's, and both follow the same documented format. A version-2 payload that is
/// compact JSON is written once, as `parsed`, and its bytes are that member's text exactly as
/// it stands in the answer: `JSONSerialization` would give back a tree, whose keys and
/// escapes come out reordered and respelled, so the text is found by a small scan instead.
enum HermesCapturedPush {
    struct Page {
        var records: [HermesDelivery]
    }

    /// - Throws: ``HermesVirtualDeviceError/unexpectedAnswer(_:)`` when the body is not
    ///   the control API's shape.
    static func page(from body: Data) throws(HermesVirtualDeviceError) -> Page {
        guard let root = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let pushes = root["pushes"] as? [Any]
        else { throw .unexpectedAnswer("the body has no \"pushes\" array") }
        let text = [UInt8](body)
        let spans = JSONSpans(text).elements(ofArrayMember: "pushes")
        var records: [HermesDelivery] = []
        for (index, element) in pushes.enumerated() {
            // Records of another kind (a delivery event, a channel operation) are not pushes.
            guard let push = element as? [String: Any], (push["kind"] as? String ?? "push") == "push" else { continue }
            guard let sequence = integer(push["seq"]), let payload = push["payload"] as? [String: Any] else {
                throw .unexpectedAnswer("a record lacks seq or payload")
            }
            let recordSpan = index < spans.count ? spans[index] : nil
            let bytes = try payloadBytes(payload, version: integer(push["v"]) ?? 1, text: text, record: recordSpan)
            records.append(HermesDelivery(
                sequence: sequence, apnsID: push["apns_id"] as? String, collapseID: push["collapse_id"] as? String,
                pushType: push["push_type"] as? String, priority: integer(push["priority"]),
                expiration: integer(push["expiration"]), topic: push["topic"] as? String,
                payload: bytes, outcome: nil))
        }
        return Page(records: records)
    }

    /// The body's bytes: version 2 has `base64` for bytes that are not UTF-8, `raw` for other
    /// text (and JSON with whitespace), else the text of `parsed`; version 1 always has `raw`,
    /// base64 text when `base64` is true.
    private static func payloadBytes(
        _ payload: [String: Any], version: Int, text: [UInt8], record: Range<Int>?
    ) throws(HermesVirtualDeviceError) -> [UInt8] {
        if version == 1 {
            guard let raw = payload["raw"] as? String else { throw .unexpectedAnswer("a record lacks payload.raw") }
            guard payload["base64"] as? Bool == true else { return Array(raw.utf8) }
            guard let data = Data(base64Encoded: raw) else { throw .unexpectedAnswer("payload.raw is not base64") }
            return Array(data)
        }
        if let encoded = payload["base64"] as? String {
            guard let data = Data(base64Encoded: encoded) else { throw .unexpectedAnswer("payload.base64 is not base64") }
            return Array(data)
        }
        if let raw = payload["raw"] as? String { return Array(raw.utf8) }
        guard payload["parsed"] != nil else { return [] }
        let spans = JSONSpans(text)
        guard let record, let payloadSpan = spans.member("payload", ofObjectAt: record.lowerBound),
              let parsed = spans.member("parsed", ofObjectAt: payloadSpan.lowerBound)
        else { throw .unexpectedAnswer("payload.parsed cannot be located in the answer") }
        return Array(text[parsed])
    }

    /// JSONSerialization gives NSNumber on Linux and Apple platforms alike; `as? Int`
    /// bridges it on both.
    private static func integer(_ value: Any?) -> Int? {
        value as? Int
    }
}

/// Where values lie in JSON text that `JSONSerialization` already accepted: containers,
/// strings and scalars are told apart, keys compared as written (as the mock writes them).
private struct JSONSpans {
    let text: [UInt8]

    init(_ text: [UInt8]) {
        self.text = text
    }

    /// The elements of the top-level object's array member `key`.
    func elements(ofArrayMember key: String) -> [Range<Int>] {
        guard let array = member(key, ofObjectAt: skipWhitespace(0)), text[array.lowerBound] == UInt8(ascii: "[") else { return [] }
        var ranges: [Range<Int>] = []
        var index = skipWhitespace(array.lowerBound + 1)
        while index < array.upperBound, text[index] != UInt8(ascii: "]") {
            let end = endOfValue(index)
            ranges.append(index..<end)
            index = skipWhitespace(end)
            guard index < array.upperBound, text[index] == UInt8(ascii: ",") else { break }
            index = skipWhitespace(index + 1)
        }
        return ranges
    }

    /// The value of `key` in the object whose `{` is at `start`.
    func member(_ key: String, ofObjectAt start: Int) -> Range<Int>? {
        guard start < text.count, text[start] == UInt8(ascii: "{") else { return nil }
        let wanted = Array(key.utf8)
        var index = skipWhitespace(start + 1)
        while index < text.count, text[index] == UInt8(ascii: "\"") {
            let keyEnd = endOfString(index)
            let matches = text[(index + 1)..<max(index + 1, keyEnd - 1)].elementsEqual(wanted)
            index = skipWhitespace(keyEnd)
            guard index < text.count, text[index] == UInt8(ascii: ":") else { return nil }
            let valueStart = skipWhitespace(index + 1)
            let valueEnd = endOfValue(valueStart)
            if matches { return valueStart..<valueEnd }
            index = skipWhitespace(valueEnd)
            guard index < text.count, text[index] == UInt8(ascii: ",") else { return nil }
            index = skipWhitespace(index + 1)
        }
        return nil
    }

    private func endOfValue(_ start: Int) -> Int {
        guard start < text.count else { return start }
        switch text[start] {
        case UInt8(ascii: "\""):
            return endOfString(start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var index = start
            while index < text.count {
                switch text[index] {
                case UInt8(ascii: "\""):
                    index = endOfString(index)
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return index + 1 }
                default: break
                }
                index += 1
            }
            return index
        default:
            var index = start
            while index < text.count, !Self.endsScalar(text[index]) { index += 1 }
            return index
        }
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }

    private func endOfString(_ openingQuote: Int) -> Int {
        var index = openingQuote + 1
        while index < text.count {
            switch text[index] {
            case UInt8(ascii: "\""): return index + 1
            case UInt8(ascii: "\\"): index += 2
            default: index += 1
            }
        }
        return text.count
    }

    private func skipWhitespace(_ start: Int) -> Int {
        var index = start
        while index < text.count, Self.isWhitespace(text[index]) { index += 1 }
        return index
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
