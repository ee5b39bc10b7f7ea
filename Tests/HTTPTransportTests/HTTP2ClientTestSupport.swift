import Foundation
import Synchronization
@testable import HTTPTransport

/// Certificates and servers for the HTTP2Client tests.
enum HTTP2ClientFixtures {
    static let ca = TestCertificates.ca
    static let serverCertificate = TestCertificates.serverCertificate
    static let serverKey = TestCertificates.serverKey
    /// A certificate that did not issue the server's: trusting only it must fail verification.
    static let unrelatedCA = TestCertificates.clientCertificate

    /// Starts our own server on a free port.
    static func server(
        tls: Bool, host: String = "127.0.0.1", handler: any HTTPServerHandler,
        configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(host: host, port: 0)
        if tls {
            configuration.tls = .makeServerConfiguration(certificateChainPath: serverCertificate, privateKeyPath: serverKey)
        }
        configure(&configuration)
        return try HTTPServer(configuration: configuration, handler: handler)
    }

    /// A client for `server`, trusting the test CA when the server uses TLS.
    static func client(
        for server: HTTPServer, host: String = "localhost",
        configure: (inout HTTP2ClientConfiguration) -> Void = { _ in }
    ) throws -> HTTP2Client {
        var configuration = HTTP2ClientConfiguration(
            host: host, port: server.localAddress.port,
            tls: server.configuration.tls == nil ? nil : .makeClientConfiguration(trustRootsPath: ca))
        configure(&configuration)
        return try HTTP2Client(configuration: configuration)
    }

    /// Answers 200, echoing the body and the `x-marker` header as `x-echo-marker`.
    static let echo = ClosureHandler { request in
        HTTPResponse(status: 200, headers: ["x-echo-marker": request.headers["x-marker"] ?? "-"], body: request.body)
    }
}

/// Thrown when a test body outlives its time limit: something hung.
struct HTTP2ClientTestTimeout: Error, CustomStringConvertible {
    let limit: Duration
    var description: String { "test body did not finish within \(limit): a request hung" }
}

/// Runs `body`, failing if it takes longer than `limit`. Pending sends are cancelled on timeout.
func withHTTP2ClientTimeout<T: Sendable>(
    _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    // A hang guard, not a timing assertion: a starved machine must not trip it.
    let limit = max(limit, .seconds(60))
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw HTTP2ClientTestTimeout(limit: limit)
        }
        return value
    }
}

/// Sends `request` and returns the outcome, so tests can assert on errors by value.
func outcome(of client: HTTP2Client, _ request: HTTPClientRequest) async -> Result<HTTPClientResponse, HTTPClientError> {
    do {
        return .success(try await client.send(request))
    } catch {
        return .failure(error)
    }
}


/// Counts requests by path, from any thread.
final class HTTP2ClientPathCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    func record(_ path: String) { counts.withLock { $0[path, default: 0] += 1 } }
    func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }
}
