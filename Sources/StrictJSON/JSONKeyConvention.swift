/// The suite's one spelling for the keys of the JSON it reads and writes: snake_case
/// (`key_id`, `max_concurrent_streams`), as the capture, the gateway's configuration and the
/// Hermes contract's bodies have it.
///
/// Readers that refuse unknown keys use it to say what a camelCase key (`keyId`) is called
/// now, so that an old file fails with the fix instead of a list to search:
///
/// ```swift
/// JSONKeyConvention.renamed("keyId", among: ["key_id", "team_id"])   // "key_id"
/// JSONKeyConvention.renamed("kid", among: ["key_id", "team_id"])     // nil
/// ```
public enum JSONKeyConvention {
    /// `name` in snake_case: an underscore before each word that starts with a capital,
    /// then lower case. A run of capitals is one word (`clientCA` → `client_ca`,
    /// `keyID` → `key_id`), and digits stay with the word they follow
    /// (`secretBase64Length` → `secret_base64_length`). A name without capitals is returned as it is.
    public static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        result.reserveCapacity(characters.count + 4)
        for (index, character) in characters.enumerated() {
            guard character.isUppercase else {
                result.append(character)
                continue
            }
            if index > 0 {
                let previous = characters[index - 1]
                let startsWord = previous.isLowercase || previous.isNumber
                    || (previous.isUppercase && index + 1 < characters.count && characters[index + 1].isLowercase)
                if startsWord { result.append("_") }
            }
            result += character.lowercased()
        }
        return result
    }

    /// The key among `keys` that `name` is the old camelCase spelling of, or nil when it is
    /// none (a typo, a name already in snake_case, or one that starts with a capital).
    public static func renamed(_ name: String, among keys: some Sequence<String>) -> String? {
        guard let first = name.first, first.isLowercase, name.contains(where: \.isUppercase) else { return nil }
        let snake = snakeCase(name)
        return keys.first { $0 == snake }
    }
}
