import StrictJSON

/// Why a call to the mock's control API failed.
///
/// What the control API sent is untrusted (another server may be listening there), so the
/// description quotes it, escaped for a terminal and cut short.
public struct MockControlError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// The base URL is not `http://host:port[/prefix]`.
        case invalidBaseURL
        /// No connection, or no answer: the mock is not running there, or the request timed out.
        case cannotConnect
        /// The control API answered an unexpected status; `error` is its `{"error":…}` message,
        /// if its body had one.
        case answered(status: Int, error: String?)
        /// The answer's body is not what the endpoint documents.
        case malformedAnswer
    }

    /// What went wrong.
    public let kind: Kind
    /// What the request was, such as `GET /pushes`.
    public let request: String
    /// The URL the request went to, query included, such as `http://127.0.0.1:2199/pushes`;
    /// for `invalidBaseURL`, the URL as given.
    public let url: String
    /// The body of the answer, as sent (untrusted: print ``quotedBody``); empty when there
    /// was no answer.
    public let body: [UInt8]
    /// A person's explanation of the failure, already safe to print.
    public let detail: String

    /// How much of an untrusted message the description shows.
    static let shownCharacters = 512

    init(_ kind: Kind, request: String, url: String = "", body: [UInt8] = [], _ detail: String) {
        self.kind = kind
        self.request = request
        self.url = url
        self.body = body
        self.detail = detail
    }

    /// ``body`` as text, quoted, escaped for a terminal and cut short: safe to print.
    public var quotedBody: String { Self.quoted(body: body) }

    /// `body` as text, quoted, escaped for a terminal and cut short.
    static func quoted(body: [UInt8]) -> String {
        // Four bytes at most per character shown: the rest is never decoded.
        let examined = shownCharacters * 4
        return quoted(String(decoding: body.prefix(examined), as: UTF8.self), cutShort: body.count > examined)
    }

    /// `text` from the control API, quoted, escaped for a terminal and cut short.
    /// `cutShort` says that `text` is already a part of something longer.
    static func quoted(_ text: String, cutShort: Bool = false) -> String {
        let shown = text.count > shownCharacters ? String(text.prefix(shownCharacters)) : text
        return JSONWriter.quoted(shown, escaping: .terminalSafe) + (cutShort || shown.count < text.count ? " (cut short)" : "")
    }

    public var description: String {
        switch kind {
        case .invalidBaseURL:
            return "the control API's base URL must be http://HOST:PORT with an optional prefix: \(detail)"
        case .cannotConnect:
            return "\(request): cannot reach the mock's control API (is apns-mock running there?): \(detail)"
        case .answered(let status, let error):
            let message = error.map { ": " + Self.quoted($0) } ?? (detail.isEmpty ? "" : ": \(detail)")
            return "\(request): the control API answered \(status)\(message)"
        case .malformedAnswer:
            return "\(request): the control API's answer is not what docs/control-api.md describes: \(detail)"
        }
    }
}
