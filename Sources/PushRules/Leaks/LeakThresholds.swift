/// The tunable limits of the leak detectors.
public struct LeakThresholds: Sendable, Hashable {
    /// A string with this many words or more is free text.
    public var freeTextWords: Int
    /// A string of two or more words this many bytes long or longer is free text.
    public var freeTextLength: Int
    /// A run of hex digits this long or longer is a secret.
    public var secretHexLength: Int
    /// A run of base64 characters (with upper case, lower case and digits) this long or longer is a secret.
    public var secretBase64Length: Int
    /// The fewest digits a phone number has.
    public var phoneDigits: Int

    /// The defaults: 8 words, 100 bytes, 32 hex digits, 40 base64 characters, 9 digits.
    public static let `default` = LeakThresholds(
        freeTextWords: 8, freeTextLength: 100, secretHexLength: 32, secretBase64Length: 40, phoneDigits: 9)

    /// Thresholds, each as documented on its property.
    public init(freeTextWords: Int, freeTextLength: Int, secretHexLength: Int, secretBase64Length: Int, phoneDigits: Int) {
        self.freeTextWords = freeTextWords
        self.freeTextLength = freeTextLength
        self.secretHexLength = secretHexLength
        self.secretBase64Length = secretBase64Length
        self.phoneDigits = phoneDigits
    }
}
