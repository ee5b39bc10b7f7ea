import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP exchange, over HTTP/1.1 as the plugin's urllib speaks it (or h2 where the
/// server offers it over TLS).
struct ConformanceHTTP: Sendable {
    struct Answer: Sendable {
        var status: Int
        var body: [UInt8]
        /// From the request's hand-off to the HTTP client until its whole answer was read:
        /// never less than the time from its write, which is what a caller's timeout counts.
        var elapsed: Duration = .zero
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.httpMaximumConnectionsPerHost = 4
        session = URLSession(configuration: configuration)
    }

    /// - Parameter timeout: gives up on an answer after this long instead of the session's 30 s.
    func send(_ method: String, _ url: String, json body: [UInt8]? = nil, timeout: Duration? = nil) async throws -> Answer {
        guard let target = URL(string: url) else { throw Failure(description: "not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        if let timeout { request.timeoutInterval = timeout.conformanceSeconds }
        request.setValue("hermes-push-plugin/1.0 (gateway-conformance)", forHTTPHeaderField: "User-Agent")
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let started = ContinuousClock.now
        do {
            let (data, response) = try await session.data(for: request)
            let elapsed = started.duration(to: .now)
            guard let http = response as? HTTPURLResponse else { throw Failure(description: "\(method) \(url): not an HTTP answer") }
            return Answer(status: http.statusCode, body: Array(data), elapsed: elapsed)
        } catch let failure as Failure {
            throw failure
        } catch {
            throw Failure(description: "\(method) \(url): \(error.localizedDescription)")
        }
    }

    func invalidate() {
        session.finishTasksAndInvalidate()
    }
}
