import APNsCore
import StrictJSON

/// Writes a ``CaptureRecord`` as one line of the capture format (`docs/capture-format.md`).
///
/// A line is split in two so that the store can encode the expensive part without a lock:
/// the prefix `{"v":2,"seq":N,` needs the sequence number, which is only known under the
/// store's lock, and the tail (everything else, through the newline) does not.
enum CaptureRecordEncoder {
    /// The whole line, newline included.
    static func line(_ record: CaptureRecord) -> [UInt8] {
        var output = TextBuffer(capacity: estimatedTailSize(record) + 32)
        writePrefix(sequence: record.sequence, into: &output)
        writeTail(record, into: &output)
        return output.bytes
    }

    /// A capacity guess for a tail, so encoding grows its buffer once at most.
    static func estimatedTailSize(_ record: CaptureRecord) -> Int {
        // The escaper reserves six bytes per payload byte (its worst case) before writing.
        1024 + record.payload.count * 7 + record.path.utf8.count + record.headers.count * 64
    }

    /// `{"v":2,"seq":N,`, appended to the file writer's pending bytes.
    ///
    /// It runs under the store's lock, so it allocates nothing: the constant head is built
    /// once and the digits go through the stack.
    static func writePrefix(sequence: UInt64, into output: inout [UInt8]) {
        output.append(contentsOf: prefixHead)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: TextBuffer.maximumDecimalDigits) { digits in
            guard let base = digits.baseAddress else { return }
            output.append(contentsOf: UnsafeBufferPointer(start: base, count: TextBuffer.putDecimal(sequence, at: base)))
        }
        output.append(UInt8(ascii: ","))
    }

    /// `{"v":2,"seq":`
    private static let prefixHead: [UInt8] = {
        var head = TextBuffer(capacity: 32)
        writePrefixHead(into: &head)
        return head.bytes
    }()

    private static func writePrefixHead(into output: inout TextBuffer) {
        output.append(UInt8(ascii: "{"))
        writeKey(CaptureFormat.Key.version, into: &output)
        CaptureJSONOutput.writeInteger(CaptureFormat.version, into: &output)
        writeKey(CaptureFormat.Key.sequence, separator: UInt8(ascii: ","), into: &output)
    }

    /// `{"v":2,"seq":N,`
    static func writePrefix(sequence: UInt64, into output: inout TextBuffer) {
        writePrefixHead(into: &output)
        CaptureJSONOutput.writeInteger(sequence, into: &output)
        output.append(UInt8(ascii: ","))
    }

    /// Every field after the sequence number, the closing brace and the newline.
    ///
    /// - Parameter tokenCache: where the `token` objects of recent tokens are kept, to be
    ///   copied instead of encoded again; nil encodes every one.
    static func writeTail(_ record: CaptureRecord, tokenCache: CaptureTokenCache? = nil, into output: inout TextBuffer) {
        typealias Key = CaptureFormat.Key
        writeKey(Key.kind, into: &output)
        output.append(UInt8(ascii: "\""))
        output.append(CaptureFormat.pushKind)
        output.append(UInt8(ascii: "\""))
        writeKey(Key.time, separator: UInt8(ascii: ","), into: &output)
        output.append(UInt8(ascii: "\""))
        CaptureTimestamp.write(microseconds: record.receivedAtMicroseconds, into: &output)
        output.append(UInt8(ascii: "\""))
        writeMember(Key.environment, plain: record.environment.rawValue, into: &output)
        writeMember(Key.connection, integer: record.connectionID, into: &output)
        writeMember(Key.method, string: record.method, into: &output)
        writeMember(Key.path, string: record.path, into: &output)

        writeKey(Key.headers, separator: UInt8(ascii: ","), into: &output)
        output.append(UInt8(ascii: "["))
        var firstHeader = true
        for field in record.headers {
            if !firstHeader { output.append(UInt8(ascii: ",")) }
            firstHeader = false
            output.append(UInt8(ascii: "["))
            CaptureJSONOutput.writeString(field.name, into: &output)
            output.append(UInt8(ascii: ","))
            CaptureJSONOutput.writeString(field.value, into: &output)
            output.append(UInt8(ascii: "]"))
        }
        output.append(UInt8(ascii: "]"))

        if let token = record.token {
            writeKey(Key.token, separator: UInt8(ascii: ","), into: &output)
            if let tokenCache, let encoded = tokenCache.encoded(token) {
                output.append(encoded)
            } else {
                let start = output.count
                writeToken(token, into: &output)
                tokenCache?.insert(token, bytes: output.withUnsafeBytes { Array($0[start...]) })
            }
        }
        if let deviceToken = record.deviceToken { writeMember(Key.deviceToken, plain: deviceToken.hex, into: &output) }
        if let topic = record.topic { writeMember(Key.topic, string: topic, into: &output) }
        if let pushType = record.pushType { writeMember(Key.pushType, plain: pushType.rawValue, into: &output) }
        if let priority = record.priority { writeMember(Key.priority, integer: priority.rawValue, into: &output) }
        if let expiration = record.expiration { writeMember(Key.expiration, integer: expiration, into: &output) }
        if let collapseID = record.collapseID { writeMember(Key.collapseID, string: collapseID, into: &output) }
        if let teamID = record.teamID { writeMember(Key.teamID, string: teamID, into: &output) }
        if let keyID = record.keyID { writeMember(Key.keyID, string: keyID, into: &output) }
        if let channelID = record.channelID { writeMember(Key.channelID, string: channelID, into: &output) }

        writeKey(Key.payload, separator: UInt8(ascii: ","), into: &output)
        writePayload(record.storedPayload, into: &output)

        let outcome = record.outcome
        writeMember(Key.status, integer: outcome.status, into: &output)
        if let reason = outcome.reason { writeMember(Key.reason, string: reason.wireValue, into: &output) }
        if let explanation = outcome.explanation { writeMember(Key.explanation, string: explanation, into: &output) }
        if outcome.isInjected {
            writeKey(Key.injected, separator: UInt8(ascii: ","), into: &output)
            output.append("true")
        }
        writeMember(Key.apnsID, string: outcome.apnsID, into: &output)
        if let uniqueID = outcome.uniqueID { writeMember(Key.uniqueID, string: uniqueID, into: &output) }
        if let requestID = outcome.requestID { writeMember(Key.requestID, string: requestID, into: &output) }
        if let timestamp = outcome.timestamp { writeMember(Key.timestamp, integer: timestamp, into: &output) }
        if outcome.connectionAction != .none {
            writeMember(Key.connectionAction, plain: connectionActionValue(outcome.connectionAction), into: &output)
        }

        if !record.lintWarnings.isEmpty {
            writeKey(Key.lint, separator: UInt8(ascii: ","), into: &output)
            output.append(UInt8(ascii: "["))
            for (index, warning) in record.lintWarnings.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                output.append(UInt8(ascii: "{"))
                writeKey(CaptureFormat.LintKey.code, into: &output)
                CaptureJSONOutput.writeString(warning.code, into: &output)
                writeMember(CaptureFormat.LintKey.message, string: warning.message, into: &output)
                if let path = warning.path { writeMember(CaptureFormat.LintKey.path, string: path, into: &output) }
                output.append(UInt8(ascii: "}"))
            }
            output.append(UInt8(ascii: "]"))
        }
        if !record.faults.isEmpty {
            writeKey(Key.faults, separator: UInt8(ascii: ","), into: &output)
            output.append(UInt8(ascii: "["))
            for (index, fault) in record.faults.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                CaptureJSONOutput.writeString(fault, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        }
        output.append(UInt8(ascii: "}"))
        output.append(UInt8(ascii: "\n"))
    }

    static func connectionActionValue(_ action: PushOutcome.ConnectionAction) -> String {
        switch action {
        case .none: CaptureFormat.ConnectionActionValue.none
        case .goAway: CaptureFormat.ConnectionActionValue.goAway
        case .close: CaptureFormat.ConnectionActionValue.close
        }
    }

    private static func writeToken(_ token: CaptureTokenInfo, into output: inout TextBuffer) {
        output.append(UInt8(ascii: "{"))
        var first = true
        func separate(_ output: inout TextBuffer) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
        }
        if let header = token.header {
            separate(&output)
            writeKey(CaptureFormat.TokenKey.header, into: &output)
            CaptureJSONOutput.write(header, into: &output)
        }
        if let claims = token.claims {
            separate(&output)
            writeKey(CaptureFormat.TokenKey.claims, into: &output)
            CaptureJSONOutput.write(claims, into: &output)
        }
        if let fingerprint = token.fingerprint {
            separate(&output)
            writeKey(CaptureFormat.TokenKey.fingerprint, into: &output)
            CaptureJSONOutput.writeString(fingerprint, into: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// `{"size":N,…}`: a JSON body as `parsed`, the JSON text without the whitespace between
    /// its tokens, plus `raw` only when that dropped any (so the exact bytes are always
    /// there once); any other body as `raw` text, or `base64` when it is not UTF-8.
    private static func writePayload(_ payload: CapturedPayload, into output: inout TextBuffer) {
        typealias Key = CaptureFormat.PayloadKey
        let bytes = payload.bytes
        output.append(UInt8(ascii: "{"))
        writeKey(Key.size, into: &output)
        CaptureJSONOutput.writeInteger(bytes.count, into: &output)
        defer { output.append(UInt8(ascii: "}")) }
        guard !bytes.isEmpty else { return }
        if payload.isJSON {
            writeKey(Key.parsed, separator: UInt8(ascii: ","), into: &output)
            let before = output.count
            CaptureJSONOutput.writeCompacted(json: bytes, into: &output)
            // Compacting only ever drops bytes: as long as the body, it is the body.
            guard output.count - before != bytes.count else { return }
            // Strict JSON is valid UTF-8, so it goes as text.
            writeKey(Key.raw, separator: UInt8(ascii: ","), into: &output)
            writeQuoted(bytes, into: &output)
        } else if UTF8Validation.isValid(bytes) {
            writeKey(Key.raw, separator: UInt8(ascii: ","), into: &output)
            writeQuoted(bytes, into: &output)
        } else {
            writeKey(Key.base64, separator: UInt8(ascii: ","), into: &output)
            output.append(UInt8(ascii: "\""))
            CaptureBase64.encode(bytes, into: &output)
            output.append(UInt8(ascii: "\""))
        }
    }

    private static func writeQuoted(_ bytes: [UInt8], into output: inout TextBuffer) {
        output.append(UInt8(ascii: "\""))
        CaptureJSONOutput.writeEscaped(bytes, into: &output)
        output.append(UInt8(ascii: "\""))
    }

    /// `"key":` — keys are plain ASCII constants, so they need no escaping, and with the
    /// punctuation they are one copy of known length.
    @inline(__always)
    static func writeKey(_ key: StaticString, into output: inout TextBuffer) {
        writeKey(key, separator: nil, into: &output)
    }

    /// `"key":`, after `separator` if there is one (the `,` before a member).
    @inline(__always)
    static func writeKey(_ key: StaticString, separator: UInt8?, into output: inout TextBuffer) {
        let length = key.utf8CodeUnitCount
        output.write(atMost: length + 4) { out in
            var start = out
            if let separator {
                start[0] = separator
                start += 1
            }
            start[0] = UInt8(ascii: "\"")
            (start + 1).initialize(from: key.utf8Start, count: length)
            start[length + 1] = UInt8(ascii: "\"")
            start[length + 2] = UInt8(ascii: ":")
            return start + length + 3 - out
        }
    }

    static func writeMember(_ key: StaticString, string: String, into output: inout TextBuffer) {
        writeKey(key, separator: UInt8(ascii: ","), into: &output)
        CaptureJSONOutput.writeString(string, into: &output)
    }

    /// `,"key":"value"` for a value that needs no escaping by construction: lowercase hex,
    /// or the raw value of an enum whose cases are plain ASCII words (tested). Copied as it is,
    /// it skips the escaper's scan.
    static func writeMember(_ key: StaticString, plain value: String, into output: inout TextBuffer) {
        writeKey(key, separator: UInt8(ascii: ","), into: &output)
        output.append(UInt8(ascii: "\""))
        output.append(value)
        output.append(UInt8(ascii: "\""))
    }

    private static func writeMember(_ key: StaticString, integer: some BinaryInteger, into output: inout TextBuffer) {
        writeKey(key, separator: UInt8(ascii: ","), into: &output)
        CaptureJSONOutput.writeInteger(integer, into: &output)
    }
}
