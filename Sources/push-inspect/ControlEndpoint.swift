import CLISupport
import MockAPNsControl

/// `--from`'s value: the control API's base URL.
enum ControlEndpoint {
    /// The control API's paths push-inspect adds to the base URL itself.
    static let endpointPaths = ["/pushes", "/pushes/wait", "/delivery"]

    /// Parses `--from`'s value.
    ///
    /// - Throws: `CommandLineError` (a usage error) for anything but `http://HOST:PORT` with an
    ///   optional prefix, and for a URL that names an endpoint (`…/pushes`).
    static func parse(_ url: String) throws(CommandLineError) -> ControlBaseURL {
        let expected = "--from takes the control API's base URL, such as http://127.0.0.1:2199"
        let base: ControlBaseURL
        do {
            base = try ControlBaseURL(url)
        } catch {
            throw CommandLineError("\(expected): \(error.detail)")
        }
        if let named = endpointPaths.first(where: { base.basePath.hasSuffix($0) }) {
            throw CommandLineError("\(expected), not an endpoint: got '\(url)'; drop '\(named)'")
        }
        return base
    }
}
