import StrictJSON

/// JSON forms of the mock's registry (apps, keys, devices) and fault rules, for the
/// configuration file and for the control API's GET and PUT of each.
///
/// Encoders produce what the matching decoders accept, so a document read with GET can be
/// edited and sent back with PUT. Decoders throw ``ConfigurationError`` naming the JSON path.
///
/// ```swift
/// let body = try ConfigurationJSON.parse(requestBytes)
/// let devices = try ConfigurationJSON.decodeDevices(body, path: "devices", bundleIDs: registry.bundleIDs)
/// ```
public enum ConfigurationJSON {
    /// The deepest nesting a configuration document may have; real ones need 4.
    public static let maximumDepth = 16

    /// Parses JSON text strictly (duplicate keys are errors).
    ///
    /// - Throws: ``ConfigurationError`` with code `.invalidJSON`, giving the line and column.
    public static func parse(_ bytes: [UInt8]) throws(ConfigurationError) -> JSONValue {
        do {
            return try JSONParser.parse(bytes, maximumDepth: maximumDepth)
        } catch {
            var line = 1
            var column = 1
            for byte in bytes.prefix(error.offset) {
                if byte == UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                } else if byte & 0xC0 != 0x80 {  // count characters, not UTF-8 continuation bytes
                    column += 1
                }
            }
            throw ConfigurationError(.invalidJSON, path: "", "invalid JSON at line \(line), column \(column): \(error.message)")
        }
    }

    /// Fault rules as a JSON array; see ``FaultRule/jsonValue``.
    public static func encodeFaults(_ rules: [FaultRule]) -> JSONValue {
        FaultRule.encodeList(rules)
    }

    /// Decodes a JSON array of fault rules; see ``FaultRule/decodeList(_:path:)``.
    public static func decodeFaults(_ json: JSONValue, path: String = "faults") throws(ConfigurationError) -> [FaultRule] {
        try FaultRule.decodeList(json, path: path)
    }
}
