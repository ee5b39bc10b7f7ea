import APNsCore
import StrictJSON

/// Reads one line of the capture format, version 2 or 1, back into a ``CaptureRecord``:
/// the one reader of the format in the package.
///
/// Unknown keys are ignored, so a later version may add fields without a new `"v"`; another
/// `"v"`, or a `"kind"` other than `push`, is rejected with its own kind of error, because a
/// new version may change meanings and another kind is not a push.
enum CaptureRecordDecoder {
    typealias Key = CaptureFormat.Key

    /// Decodes one line, without its newline.
    static func decode(_ line: UnsafeBufferPointer<UInt8>) throws(CaptureDecodingError) -> CaptureRecord {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, maximumDepth: CaptureFormat.maximumLineDepth)
        } catch {
            throw CaptureDecodingError("not JSON: \(error)")
        }
        guard case .object(let object) = value else { throw CaptureDecodingError("a record must be a JSON object") }
        return try decode(object, line: line)
    }

    /// Decodes one line held in an array, without its newline.
    static func decode(_ line: [UInt8]) throws(CaptureDecodingError) -> CaptureRecord {
        try line.withUnsafeBufferPointer { buffer throws(CaptureDecodingError) in try decode(buffer) }
    }

    private static func decode(_ object: [String: JSONValue], line: UnsafeBufferPointer<UInt8>) throws(CaptureDecodingError) -> CaptureRecord {
        let fields = Fields(object: object)
        let version = try fields.integer(Key.version)
        switch version {
        case CaptureFormat.version:
            let kind = try fields.string(Key.kind)
            guard kind == CaptureFormat.pushKind.description else {
                if CaptureFormat.otherKnownKinds.contains(kind) {
                    throw CaptureDecodingError("a record of kind \(CaptureDecodingError.quoted(kind)), not a push", kind: .otherKind)
                }
                throw CaptureDecodingError(
                    "a record of kind \(CaptureDecodingError.quoted(kind)); this reader knows \"\(CaptureFormat.pushKind)\"",
                    kind: .unsupportedKind)
            }
        case CaptureFormat.version1:
            break
        default:
            throw CaptureDecodingError(
                "unsupported format version \(version); this reader knows \(CaptureFormat.version1) and \(CaptureFormat.version)",
                kind: .unsupportedVersion)
        }
        let timeText = try fields.string(Key.time)
        guard let time = CaptureTimestamp.parse(timeText) else {
            throw CaptureDecodingError("\"\(Key.time)\" is not a capture timestamp: \(CaptureDecodingError.quoted(timeText))")
        }
        let environmentText = try fields.string(Key.environment)
        guard let environment = APNsEnvironment(rawValue: environmentText) else {
            throw CaptureDecodingError("\"\(Key.environment)\" is not an APNs environment: \(CaptureDecodingError.quoted(environmentText))")
        }
        let deviceToken = try fields.optionalString(Key.deviceToken).map { (text) throws(CaptureDecodingError) in
            guard let token = DeviceToken(text) else { throw CaptureDecodingError("\"\(Key.deviceToken)\" is not hex") }
            return token
        }
        let pushType = try fields.optionalString(Key.pushType).map { (text) throws(CaptureDecodingError) in
            guard let type = APNsPushType(rawValue: text) else {
                throw CaptureDecodingError("\"\(Key.pushType)\" is not a push type: \(CaptureDecodingError.quoted(text))")
            }
            return type
        }
        let priority = try fields.optionalInteger(Key.priority).map { (number) throws(CaptureDecodingError) in
            guard let priority = Int(exactly: number).flatMap(APNsPriority.init(rawValue:)) else {
                throw CaptureDecodingError("\"\(Key.priority)\" is not a priority: \(number)")
            }
            return priority
        }
        let sequence = try fields.unsigned(Key.sequence)
        guard sequence >= 1 else { throw CaptureDecodingError("\"\(Key.sequence)\" must be 1 or more, found \(sequence)") }
        let payloadValue = try fields.value(Key.payload)
        let payload = version == CaptureFormat.version1
            ? try decodeVersion1Payload(payloadValue) : try decodePayload(payloadValue, line: line)
        let outcome = PushOutcome(
            status: try fields.int(Key.status), reason: try fields.optionalString(Key.reason).map(APNsReason.init(wireValue:)),
            apnsID: try fields.string(Key.apnsID), uniqueID: try fields.optionalString(Key.uniqueID),
            timestamp: try fields.optionalInteger(Key.timestamp),
            connectionAction: try decodeConnectionAction(fields.optionalString(Key.connectionAction)),
            explanation: try fields.optionalString(Key.explanation), isInjected: try fields.optionalBool(Key.injected) ?? false)
        var outcomeWithRequest = outcome
        outcomeWithRequest.requestID = try fields.optionalString(Key.requestID)
        var record = CaptureRecord(
            sequence: sequence, receivedAtMicroseconds: time, environment: environment,
            connectionID: try fields.unsigned(Key.connection), method: try fields.string(Key.method),
            path: try fields.string(Key.path), headers: try decodeHeaders(fields.value(Key.headers)),
            token: try fields.optionalValue(Key.token).map(decodeToken), deviceToken: deviceToken,
            topic: try fields.optionalString(Key.topic),
            pushType: pushType, priority: priority, expiration: try fields.optionalInteger(Key.expiration),
            collapseID: try fields.optionalString(Key.collapseID), teamID: try fields.optionalString(Key.teamID),
            keyID: try fields.optionalString(Key.keyID), payload: payload,
            outcome: outcomeWithRequest, lintWarnings: try fields.optionalValue(Key.lint).map(decodeLint) ?? [],
            faults: try fields.optionalValue(Key.faults).map(decodeFaults) ?? [])
        record.channelID = try fields.optionalString(Key.channelID)
        return record
    }

    private static func decodeHeaders(_ value: JSONValue) throws(CaptureDecodingError) -> CaptureHeaders {
        guard case .array(let pairs) = value else { throw CaptureDecodingError("\"\(Key.headers)\" must be an array") }
        var headers = CaptureHeaders()
        headers.reserveCapacity(pairs.count)
        for pair in pairs {
            guard case .array(let parts) = pair, parts.count == 2, let name = parts[0].stringValue,
                let value = parts[1].stringValue
            else { throw CaptureDecodingError("each of \"\(Key.headers)\" must be [name, value]") }
            headers.add(name: name, value: value)
        }
        return headers
    }

    private static func decodeToken(_ value: JSONValue) throws(CaptureDecodingError) -> CaptureTokenInfo {
        guard case .object(let object) = value else { throw CaptureDecodingError("\"\(Key.token)\" must be an object") }
        let fields = Fields(object: object)
        return CaptureTokenInfo(
            header: fields.optionalValue(CaptureFormat.TokenKey.header),
            claims: fields.optionalValue(CaptureFormat.TokenKey.claims),
            fingerprint: try fields.optionalString(CaptureFormat.TokenKey.fingerprint))
    }

    /// Version 2's `payload`: `parsed` (the body, compacted) and `raw` only when compacting
    /// changed it, `raw` alone for other text, `base64` for other bytes.
    private static func decodePayload(
        _ value: JSONValue, line: UnsafeBufferPointer<UInt8>
    ) throws(CaptureDecodingError) -> CapturedPayload {
        typealias PayloadKey = CaptureFormat.PayloadKey
        guard case .object(let object) = value else { throw CaptureDecodingError("\"\(Key.payload)\" must be an object") }
        let fields = Fields(object: object)
        let parsed = fields.optionalValue(PayloadKey.parsed)
        let payload: CapturedPayload
        if let text = try fields.optionalString(PayloadKey.base64) {
            guard let decoded = CaptureBase64.decode(text) else {
                throw CaptureDecodingError("\"\(Key.payload).\(PayloadKey.base64)\" is not base64")
            }
            payload = CapturedPayload(decoded)
        } else if let raw = try fields.optionalString(PayloadKey.raw) {
            payload = CapturedPayload(Array(raw.utf8), knowledge: parsed.map { .tree($0, checked: false) } ?? .unknown)
        } else if let parsed {
            // The body is the member's text exactly as the line holds it.
            guard let range = CaptureLineScan.valueRange(in: line, path: Key.payload, PayloadKey.parsed) else {
                throw CaptureDecodingError("\"\(Key.payload).\(PayloadKey.parsed)\" cannot be located in the line")
            }
            payload = CapturedPayload(Array(line[range]), knowledge: .tree(parsed, checked: true))
        } else {
            payload = CapturedPayload([])
        }
        try checkSize(fields, payload.bytes)
        return payload
    }

    /// Version 1's `payload`: always `raw` (base64 text when `base64` is true), and `parsed`
    /// when validation had parsed it.
    private static func decodeVersion1Payload(_ value: JSONValue) throws(CaptureDecodingError) -> CapturedPayload {
        typealias PayloadKey = CaptureFormat.PayloadKey
        guard case .object(let object) = value else { throw CaptureDecodingError("\"\(Key.payload)\" must be an object") }
        let fields = Fields(object: object)
        let raw = try fields.string(PayloadKey.raw)
        let bytes: [UInt8]
        if try fields.bool(PayloadKey.base64) {
            guard let decoded = CaptureBase64.decode(raw) else {
                throw CaptureDecodingError("\"\(Key.payload).\(PayloadKey.raw)\" is not base64")
            }
            bytes = decoded
        } else {
            bytes = Array(raw.utf8)
        }
        try checkSize(fields, bytes)
        return CapturedPayload(bytes, knowledge: fields.optionalValue(PayloadKey.parsed).map { .tree($0, checked: false) } ?? .unknown)
    }

    private static func checkSize(_ fields: Fields, _ bytes: [UInt8]) throws(CaptureDecodingError) {
        let size = try fields.integer(CaptureFormat.PayloadKey.size)
        guard size == bytes.count else {
            throw CaptureDecodingError(
                "\"\(Key.payload).\(CaptureFormat.PayloadKey.size)\" is \(size) but the payload has \(bytes.count) bytes")
        }
    }

    private static func decodeConnectionAction(_ text: String?) throws(CaptureDecodingError) -> PushOutcome.ConnectionAction {
        switch text {
        case nil, CaptureFormat.ConnectionActionValue.none: return .none
        case CaptureFormat.ConnectionActionValue.goAway: return .goAway
        case CaptureFormat.ConnectionActionValue.close: return .close
        case let other?: throw CaptureDecodingError("\"\(Key.connectionAction)\" is not known: \(CaptureDecodingError.quoted(other))")
        }
    }

    private static func decodeLint(_ value: JSONValue) throws(CaptureDecodingError) -> [PushLintWarning] {
        guard case .array(let entries) = value else { throw CaptureDecodingError("\"\(Key.lint)\" must be an array") }
        var warnings: [PushLintWarning] = []
        warnings.reserveCapacity(entries.count)
        for entry in entries {
            guard case .object(let object) = entry else { throw CaptureDecodingError("each of \"\(Key.lint)\" must be an object") }
            let fields = Fields(object: object)
            warnings.append(PushLintWarning(
                code: try fields.string(CaptureFormat.LintKey.code), message: try fields.string(CaptureFormat.LintKey.message),
                path: try fields.optionalString(CaptureFormat.LintKey.path)))
        }
        return warnings
    }

    private static func decodeFaults(_ value: JSONValue) throws(CaptureDecodingError) -> [String] {
        guard case .array(let entries) = value else { throw CaptureDecodingError("\"\(Key.faults)\" must be an array") }
        var faults: [String] = []
        faults.reserveCapacity(entries.count)
        for entry in entries {
            guard let fault = entry.stringValue else { throw CaptureDecodingError("each of \"\(Key.faults)\" must be a string") }
            faults.append(fault)
        }
        return faults
    }

    /// Typed access to an object's members, with errors that name the key. A `null` member
    /// counts as absent.
    private struct Fields {
        let object: [String: JSONValue]

        func optionalValue(_ key: StaticString) -> JSONValue? {
            guard let value = object[key.description], value != .null else { return nil }
            return value
        }

        func value(_ key: StaticString) throws(CaptureDecodingError) -> JSONValue {
            guard let value = optionalValue(key) else { throw CaptureDecodingError("\"\(key)\" is missing") }
            return value
        }

        func optionalString(_ key: StaticString) throws(CaptureDecodingError) -> String? {
            guard let value = optionalValue(key) else { return nil }
            guard case .string(let text) = value else { throw CaptureDecodingError("\"\(key)\" must be a string") }
            return text
        }

        func string(_ key: StaticString) throws(CaptureDecodingError) -> String {
            guard let text = try optionalString(key) else { throw CaptureDecodingError("\"\(key)\" is missing") }
            return text
        }

        func optionalInteger(_ key: StaticString) throws(CaptureDecodingError) -> Int64? {
            guard let value = optionalValue(key) else { return nil }
            guard case .integer(let number) = value else { throw CaptureDecodingError("\"\(key)\" must be an integer") }
            return number
        }

        func integer(_ key: StaticString) throws(CaptureDecodingError) -> Int64 {
            guard let number = try optionalInteger(key) else { throw CaptureDecodingError("\"\(key)\" is missing") }
            return number
        }

        func int(_ key: StaticString) throws(CaptureDecodingError) -> Int {
            guard let number = Int(exactly: try integer(key)) else { throw CaptureDecodingError("\"\(key)\" is out of range") }
            return number
        }

        /// A non-negative integer. Sequence numbers and connection ids stay below 2^63 in practice;
        /// larger ones would not parse as JSON integers, so they are rejected here.
        func unsigned(_ key: StaticString) throws(CaptureDecodingError) -> UInt64 {
            guard let number = UInt64(exactly: try integer(key)) else { throw CaptureDecodingError("\"\(key)\" must not be negative") }
            return number
        }

        func optionalBool(_ key: StaticString) throws(CaptureDecodingError) -> Bool? {
            guard let value = optionalValue(key) else { return nil }
            guard case .bool(let flag) = value else { throw CaptureDecodingError("\"\(key)\" must be a boolean") }
            return flag
        }

        func bool(_ key: StaticString) throws(CaptureDecodingError) -> Bool {
            guard case .bool(let flag)? = optionalValue(key) else { throw CaptureDecodingError("\"\(key)\" must be a boolean") }
            return flag
        }
    }
}
