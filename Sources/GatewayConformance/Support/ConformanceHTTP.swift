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

    func send(_ method: String, _ url: String, json body: [UInt8]? = nil) async throws -> Answer {
        guard let target = URL(string: url) else { throw Failure(description: "not a URL: \(url)") }
        var request = URLRequest(url: target)
        request.httpMethod = method
        request.setValue("hermes-push-plugin/1.0 (gateway-conformance)", forHTTPHeaderField: "User-Agent")
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else { throw Failure(description: "\(method) \(url): not an HTTP answer") }
            return Answer(status: http.statusCode, body: Array(data))
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
