/// `hmac` values that are not 64 lowercase hex digits, made from a well-formed one.
///
/// Contract §2.3 answers a bad `hmac` with 403, whatever is wrong with it: a gateway that
/// calls a malformed one an invalid request (400) makes the plugin give up silently, where
/// a 403 is logged as an authorization failure.
enum MalformedHMAC {
    /// Each variant's name for the details, and its value.
    ///
    /// - Parameter hmac: 64 lowercase hex digits, the right HMAC when the suite has the secret.
    static func variants(of hmac: String) -> [(name: String, value: String)] {
        [
            ("uppercase hmac", hmac.uppercased()),
            ("hmac with 2 digits dropped", String(hmac.dropLast(2))),
            ("empty hmac", ""),
            ("64 non-hex characters as hmac", String(repeating: "g", count: 64)),
        ]
    }
}
