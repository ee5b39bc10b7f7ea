import APNsCore
import StrictJSON

extension CaptureDeliveryEvent {
    typealias Key = CaptureFormat.Key

    /// Everything after `{"v":2,"seq":N,`, through the newline: what
    /// ``CaptureStore/appendToFile(_:)`` appends after the sequence number.
    package func encodedTail() -> [UInt8] {
        var output = TextBuffer(capacity: estimatedTailSize)
        writeTail(into: &output)
        return output.bytes
    }

    /// A capacity that holds the tail, so its buffer never grows.
    var estimatedTailSize: Int { 256 + (apnsID.utf8.count + (uniqueID?.utf8.count ?? 0) + (topic?.utf8.count ?? 0)) * 6 }

    /// ``encodedTail()``, into `output`.
    func writeTail(into output: inout TextBuffer) {
        CaptureRecordEncoder.writeKey(Key.kind, into: &output)
        output.append(UInt8(ascii: "\""))
        output.append(CaptureFormat.deliveryKind)
        output.append(UInt8(ascii: "\""))
        CaptureRecordEncoder.writeKey(Key.time, separator: UInt8(ascii: ","), into: &output)
        output.append(UInt8(ascii: "\""))
        CaptureTimestamp.write(microseconds: timeMicroseconds, into: &output)
        output.append(UInt8(ascii: "\""))
        CaptureRecordEncoder.writeMember(Key.apnsID, string: apnsID, into: &output)
        if let uniqueID { CaptureRecordEncoder.writeMember(Key.uniqueID, string: uniqueID, into: &output) }
        CaptureRecordEncoder.writeMember(Key.deviceToken, plain: deviceToken.hex, into: &output)
        if let topic { CaptureRecordEncoder.writeMember(Key.topic, string: topic, into: &output) }
        CaptureRecordEncoder.writeMember(Key.state, string: state, into: &output)
        if let why { CaptureRecordEncoder.writeMember(Key.why, string: why, into: &output) }
        if let by { CaptureRecordEncoder.writeMember(Key.by, string: by, into: &output) }
        output.append(UInt8(ascii: "}"))
        output.append(UInt8(ascii: "\n"))
    }

    /// The whole line, newline included, with ``sequence``.
    public func encodedLine() -> [UInt8] {
        var output = TextBuffer(capacity: 32)
        CaptureRecordEncoder.writePrefix(sequence: sequence, into: &output)
        output.append(encodedTail())
        return output.bytes
    }

    /// Decodes a `"kind":"delivery"` line, without its newline.
    ///
    /// - Throws: ``CaptureDecodingError`` naming the field; `.unsupportedKind` for a record
    ///   of another kind, `.unsupportedVersion` for another `"v"`.
    public init(decoding line: [UInt8]) throws(CaptureDecodingError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, maximumDepth: 4)
        } catch {
            throw CaptureDecodingError("not JSON: \(error)")
        }
        guard case .object(let object) = value else { throw CaptureDecodingError("a record must be a JSON object") }
        func string(_ key: StaticString, required: Bool = true) throws(CaptureDecodingError) -> String? {
            switch object[key.description] {
            case .string(let text)?: return text
            case nil, .null?: if required { throw CaptureDecodingError("\"\(key)\" is missing") } else { return nil }
            default: throw CaptureDecodingError("\"\(key)\" must be a string")
            }
        }
        guard case .integer(let version)? = object[Key.version.description], version == CaptureFormat.version else {
            throw CaptureDecodingError("a delivery event is a version-\(CaptureFormat.version) record", kind: .unsupportedVersion)
        }
        guard try string(Key.kind) == CaptureFormat.deliveryKind.description else {
            throw CaptureDecodingError("not a record of kind \"\(CaptureFormat.deliveryKind)\"", kind: .unsupportedKind)
        }
        guard case .integer(let sequence)? = object[Key.sequence.description], let sequence = UInt64(exactly: sequence) else {
            throw CaptureDecodingError("\"\(Key.sequence)\" must be a non-negative integer")
        }
        let timeText = try string(Key.time) ?? ""
        guard let time = CaptureTimestamp.parse(timeText) else {
            throw CaptureDecodingError("\"\(Key.time)\" is not a capture timestamp: \(CaptureDecodingError.quoted(timeText))")
        }
        guard let token = DeviceToken(try string(Key.deviceToken) ?? "") else {
            throw CaptureDecodingError("\"\(Key.deviceToken)\" is not hex")
        }
        self.init(
            sequence: sequence, timeMicroseconds: time, apnsID: try string(Key.apnsID) ?? "",
            uniqueID: try string(Key.uniqueID, required: false), deviceToken: token,
            topic: try string(Key.topic, required: false), state: try string(Key.state) ?? "",
            why: try string(Key.why, required: false), by: try string(Key.by, required: false))
    }
}
