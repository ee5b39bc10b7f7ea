import APNsCore

extension APNsPushType {
    /// The type's wire name after the indefinite article it is said with, as findings write
    /// it: "an alert", "a voip", "an mdm".
    var withArticle: String {
        // A switch rather than a test of the first letter: "mdm" is said with a vowel sound,
        // and a type added to APNsPushType must be given its article here to compile.
        let article = switch self {
        case .alert, .mdm: "an"
        case .background, .voip, .complication, .fileprovider, .liveactivity, .location, .pushtotalk, .widgets, .controls: "a"
        }
        return "\(article) \(rawValue)"
    }
}
