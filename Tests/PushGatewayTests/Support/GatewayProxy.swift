import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTransport
import PushTestSupport

/// A third-party gateway made from ours: a cleartext proxy in front of it that answers some
/// requests itself, as a gateway that breaks the contract would, and forwards the rest.
final class GatewayProxy: Sendable {
    private let server: RecordingHTTPServer
    private let session: URLSession

    /// - Parameters:
    ///   - target: our gateway's base URL.
    ///   - intercept: the answer for a request the proxy answers itself, or nil to forward it.
    init(to target: String, intercept: @escaping @Sendable (RecordingHTTPServer.Request) -> HTTPResponse?) throws {
        let session = URLSession(configuration: .ephemeral)
        self.session = session
        server = try RecordingHTTPServer { request, _, responder in
            if let answer = intercept(request) {
                responder.respond(answer)
                return
            }
            guard let url = URL(string: target + request.path) else {
                responder.respond(HTTPResponse(status: 502, text: "bad target"))
                return
            }
            var forwarded = URLRequest(url: url)
            forwarded.httpMethod = request.method
            forwarded.httpBody = Data(request.body)
            forwarded.setValue("application/json", forHTTPHeaderField: "Content-Type")
            Task {
                do {
                    let (data, response) = try await session.data(for: forwarded)
                    let status = (response as? HTTPURLResponse)?.statusCode ?? 502
                    responder.respond(HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(data)))
                } catch {
                    responder.respond(HTTPResponse(status: 502, text: "\(error)"))
                }
            }
        }
    }

    /// `http://127.0.0.1:PORT`.
    var baseURL: String { server.baseURL }

    func stop() {
        server.stop()
        session.finishTasksAndInvalidate()
    }

    /// A JSON error answer, as a gateway writes one.
    static func error(_ status: Int, _ code: String) -> HTTPResponse {
        HTTPResponse(status: status, text: #"{"error":"\#(code)"}"#, contentType: "application/json")
    }
}
