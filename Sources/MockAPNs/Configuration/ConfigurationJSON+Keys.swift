import Foundation
import JWTVerify
import StrictJSON

extension ConfigurationJSON {
    /// Key IDs and team IDs are 10 letters or digits in Apple's developer accounts.
    static func isAppleIdentifier(_ text: String) -> Bool {
        text.utf8.count == 10 && text.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
    }

    /// Keys as a JSON array, without key material: key ID, team, environment scope, topics
    /// and the public key as a JWK. Sorted by key ID.
    ///
    /// ```json
    /// [{"environment":"both","key_id":"ABC123DEFG","public_key":{"crv":"P-256","kid":"ABC123DEFG",
    ///   "kty":"EC","x":"…","y":"…"},"team_id":"TEAM000001"}]
    /// ```
    public static func encodeKeys(_ keys: [String: APNsRegisteredKey]) -> JSONValue {
        .array(keys.sorted { $0.key < $1.key }.map { keyID, key in
            var members: [String: JSONValue] = [
                KeyEntryKey.keyID: .string(keyID), KeyEntryKey.teamID: .string(key.teamID),
                KeyEntryKey.environment: .string(key.environments.rawValue),
                KeyEntryKey.publicKey: jwkValue(key.publicKey.jwk(keyID: keyID)),
            ]
            if let topics = key.topics { members[KeyEntryKey.topics] = .array(topics.sorted().map(JSONValue.string)) }
            return .object(members)
        })
    }

    /// Decodes a JSON array of keys. Each names its key material with exactly one of
    /// `path` (a `.p8` private key or a public-key PEM file) or `public_key` (a JWK object or
    /// PEM text).
    ///
    /// - Parameters:
    ///   - json: The array.
    ///   - path: Its JSON path, for errors.
    ///   - baseDirectory: The folder relative key paths are resolved against; nil leaves
    ///     them relative to the working directory.
    ///   - bundleIDs: When given, each of a key's `topics` must be one of these.
    /// - Throws: ``ConfigurationError`` naming the field; `.invalidKey` when key material
    ///   cannot be read or is not P-256; `.duplicateID` for a repeated key ID.
    public static func decodeKeys(
        _ json: JSONValue, path: String = "keys", baseDirectory: String? = nil, bundleIDs: Set<String>? = nil
    ) throws(ConfigurationError) -> [String: APNsRegisteredKey] {
        var keys: [String: APNsRegisteredKey] = [:]
        for (index, element) in try JSONField.array(json, path: path).enumerated() {
            let object = try JSONObjectReader(element, path: JSONField.path(path, index), allowed: KeyEntryKey.all)
            let keyID = try appleIdentifier(object, KeyEntryKey.keyID)
            let teamID = try appleIdentifier(object, KeyEntryKey.teamID)
            var scope = APNsKeyEnvironmentScope.both
            if let text = try object.string(KeyEntryKey.environment) {
                guard let parsed = APNsKeyEnvironmentScope(rawValue: text) else {
                    throw ConfigurationError(
                        .invalidValue, path: object.path(KeyEntryKey.environment),
                        "expected \"production\", \"sandbox\" or \"both\", \(JSONField.found(.string(text)))")
                }
                scope = parsed
            }
            let topics = try object.stringArray(KeyEntryKey.topics)
            if let topics, let bundleIDs, let stray = topics.firstIndex(where: { !bundleIDs.contains($0) }) {
                throw ConfigurationError(
                    .invalidValue, path: JSONField.path(object.path(KeyEntryKey.topics), stray),
                    "expected one of the apps (\(bundleIDs.sorted().joined(separator: ", "))), \(JSONField.found(.string(topics[stray])))")
            }
            let publicKey = try keyMaterial(object, baseDirectory: baseDirectory)
            guard keys.updateValue(
                APNsRegisteredKey(publicKey: publicKey, teamID: teamID, environments: scope, topics: topics.map(Set.init)), forKey: keyID) == nil
            else {
                throw ConfigurationError(.duplicateID, path: object.path(KeyEntryKey.keyID), "duplicate key ID \"\(keyID)\"")
            }
        }
        return keys
    }

    /// Loads a key file: a public-key PEM is used as is; anything else is read as a private
    /// key (`.p8`), of which only the public half is kept.
    static func loadKey(file: String, path: String) throws(ConfigurationError) -> ES256PublicKey {
        if let problem = ConfigurationFileCheck.problemReading(file) {
            throw ConfigurationError(.invalidKey, path: path, "cannot read key file '\(file)': \(problem)")
        }
        let text: String
        do {
            text = try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw ConfigurationError(.invalidKey, path: path, "cannot read key file '\(file)' as UTF-8 text")
        }
        do {
            if text.contains("-----BEGIN PUBLIC KEY-----") { return try ES256PublicKey(pemRepresentation: text) }
            return try ES256PrivateKey(pemRepresentation: text).publicKey
        } catch {
            throw ConfigurationError(.invalidKey, path: path, "key file '\(file)': \(error.message)")
        }
    }

    private static func appleIdentifier(_ object: JSONObjectReader, _ field: String) throws(ConfigurationError) -> String {
        let text = try object.requiredString(field)
        guard isAppleIdentifier(text) else {
            throw ConfigurationError(.invalidValue, path: object.path(field), "expected 10 letters or digits, \(JSONField.found(.string(text)))")
        }
        return text
    }

    private static func keyMaterial(_ object: JSONObjectReader, baseDirectory: String?) throws(ConfigurationError) -> ES256PublicKey {
        let choices = "\(JSONValue.string(KeyEntryKey.path)) or \(JSONValue.string(KeyEntryKey.publicKey))"
        switch (object.value(KeyEntryKey.path), object.value(KeyEntryKey.publicKey)) {
        case (nil, nil):
            throw ConfigurationError(.missingField, path: object.path(KeyEntryKey.path), "required field is missing; give \(choices)")
        case (.some, .some):
            throw ConfigurationError(.invalidValue, path: object.path(KeyEntryKey.publicKey), "give either \(choices), not both")
        case (.some(let value), nil):
            let file = try JSONField.string(value, path: object.path(KeyEntryKey.path))
            return try loadKey(file: ConfigurationPath.resolve(file, against: baseDirectory), path: object.path(KeyEntryKey.path))
        case (nil, .some(let value)):
            let path = object.path(KeyEntryKey.publicKey)
            switch value {
            case .string, .object: break
            default: throw ConfigurationError(.invalidValue, path: path, "expected a JWK object or PEM text, \(JSONField.found(value))")
            }
            do throws(ES256KeyError) {
                if case .string(let pem) = value { return try ES256PublicKey(pemRepresentation: pem) }
                return try ES256PublicKey(jwk: value.description)
            } catch {
                throw ConfigurationError(.invalidKey, path: path, error.message)
            }
        }
    }

    private static func jwkValue(_ jwk: JSONWebKey) -> JSONValue {
        // JWTVerify owns the JWK member names; reading its JSON back keeps them defined once.
        // Its output always parses, so the fallback is never taken.
        (try? JSONParser.parse(Array(jwk.json.utf8))) ?? .null
    }
}
