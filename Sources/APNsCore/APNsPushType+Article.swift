extension APNsPushType {
    /// The type's wire name after the indefinite article it is said with, for messages that
    /// name a push by its type: "an alert", "a voip", "an mdm".
    ///
    /// ```swift
    /// "\(pushType.withArticle) push allows \(pushType.maxPayloadSize) bytes"   // "a voip push allows 5120 bytes"
    /// ```
    public var withArticle: String {
        // A switch rather than a test of the first letter: "mdm" is said with a vowel sound,
        // and a type added to APNsPushType must be given its article here to compile.
        let article = switch self {
        case .alert, .mdm: "an"
        case .background, .voip, .complication, .fileprovider, .liveactivity, .location, .pushtotalk, .widgets, .controls: "a"
        }
        return "\(article) \(rawValue)"
    }
}
