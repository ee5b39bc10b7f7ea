import APNsCore
import HermesContract
import StrictJSON

/// The contract's request parsing, canonical string and payload as first written: plainly,
/// over `JSONParser` and `String`s, without the byte-level fast paths. The differential tests
/// hold the fast paths to exactly this behaviour (same requests, same errors, same bytes).
enum ReferenceHermesContract {
    static func parse(_ bytes: [UInt8]) throws(HermesRequestError) -> HermesPushRequest {
        guard bytes.count <= HermesPushRequest.maximumBodySize else {
            throw .invalidValue(field: "body", reason: "is larger than \(HermesPushRequest.maximumBodySize) bytes")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes, maximumDepth: 8)
        } catch {
            throw .malformedJSON("\(error.problem) at byte \(error.offset)")
        }
        guard case .object(let members) = value else { throw .notAnObject }
        func optionalString(_ field: String) throws(HermesRequestError) -> String? {
            switch members[field] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw .notAString(field)
            }
        }
        func requiredString(_ field: String) throws(HermesRequestError) -> String {
            guard let value = try optionalString(field) else { throw .missingField(field) }
            return value
        }
        let token = try requiredString("device_token")
        guard (64...256).contains(token.utf8.count), DeviceToken(token) != nil else {
            throw .invalidValue(field: "device_token", reason: "must be an even number of hex digits, 64 to 256")
        }
        guard let environment = HermesAPNsEnvironment(rawValue: try requiredString("apns_env")) else {
            throw .invalidValue(field: "apns_env", reason: "must be \"sandbox\" or \"production\"")
        }
        guard let type = HermesPushType(rawValue: try requiredString("type")) else {
            throw .invalidValue(field: "type", reason: "must be one of approval, clarify, complete, error")
        }
        let sessionID = try requiredString("session_id")
        guard isValidSessionID(sessionID) else {
            throw .invalidValue(field: "session_id", reason: "must match \(HermesSessionID.pattern)")
        }
        var request = HermesPushRequest(deviceToken: token, environment: environment, type: type, sessionID: sessionID)
        request.title = try requiredString("title")
        guard request.title == type.title else {
            throw .invalidValue(field: "title", reason: "must be \"\(type.title)\" for type \(type.rawValue)")
        }
        request.body = try requiredString("body")
        guard request.body == type.body else {
            throw .invalidValue(field: "body", reason: "must be \"\(type.body)\" for type \(type.rawValue)")
        }
        request.threadID = try optionalString("thread_id")
        if let threadID = request.threadID, !threadID.isEmpty, threadID != sessionID {
            throw .invalidValue(field: "thread_id", reason: "must equal session_id")
        }
        // Any string: a malformed hmac is the authorization's to refuse (403), not the parser's.
        request.hmac = try optionalString("hmac")
        // Any string too: one the gateway never issues (empty, oversized) is a bad capability, 403.
        request.capability = try optionalString("capability")
        if request.hmac == nil, request.capability == nil { throw .missingAuthorization }
        return request
    }

    /// `^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$`, byte by byte.
    static func isValidSessionID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= 128 else { return false }
        for (index, byte) in bytes.enumerated() {
            let alphanumeric = isDigit(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            if alphanumeric { continue }
            if index > 0, [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-")].contains(byte) { continue }
            return false
        }
        return true
    }

    /// `JSON.stringify` of the signed members, through the general writer.
    static func canonicalBytes(_ request: HermesPushRequest) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("device_token", .string(request.deviceToken)), ("apns_env", .string(request.environment.rawValue)),
            ("type", .string(request.type.rawValue)), ("session_id", .string(request.sessionID)),
            ("title", .string(request.title)), ("body", .string(request.body)),
        ]
        if let threadID = request.threadID, !threadID.isEmpty { members.append(("thread_id", .string(threadID))) }
        var output: [UInt8] = []
        JSONWriter.writeObject(members, into: &output)
        return output
    }

    /// The payload of contract §3, string by string through the general writer.
    static func payload(_ notification: HermesNotification) -> [UInt8] {
        var output: [UInt8] = []
        func raw(_ text: String) { output.append(contentsOf: Array(text.utf8)) }
        raw(#"{"aps":{"alert":{"title":"#)
        JSONWriter.writeString(notification.type.title, into: &output)
        raw(#","body":"#)
        JSONWriter.writeString(notification.type.body, into: &output)
        raw(#"},"sound":"default","thread-id":"#)
        JSONWriter.writeString(notification.sessionID, into: &output)
        raw(#","category":"#)
        JSONWriter.writeString("HERMES_" + notification.type.rawValue.uppercased(), into: &output)
        if let badge = notification.badge { raw(#","badge":\#(badge)"#) }
        raw(#"},"session_id":"#)
        JSONWriter.writeString(notification.sessionID, into: &output)
        raw(#","type":"#)
        JSONWriter.writeString(notification.type.rawValue, into: &output)
        raw("}")
        return output
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}
