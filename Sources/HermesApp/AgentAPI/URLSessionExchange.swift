import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange over URLSession, reduced to what callers act on: a status and body,
/// or a description of why there was no answer.
enum URLSessionExchange {
    struct Answer: Sendable {
        var status: Int
        var body: Data
    }

    static func perform(_ request: URLRequest, session: URLSession) async -> Result<Answer, TransportFailure> {
        do {
            let (body, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                return .failure(TransportFailure(description: "the answer was not HTTP"))
            }
            return .success(Answer(status: http.statusCode, body: body))
        } catch {
            return .failure(TransportFailure(description: error.localizedDescription))
        }
    }

    /// `base` with `path` (which starts with `/`, may carry a query) after it, whether or
    /// not `base` ends in a slash.
    static func url(_ base: URL, path: String) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + path) ?? base
    }

    struct TransportFailure: Error, Sendable {
        var description: String
    }
}
