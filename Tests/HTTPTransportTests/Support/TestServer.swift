import Foundation
import Synchronization
@testable import HTTPTransport

/// Paths to the repository's test certificates.
enum TestCertificates {
    /// The package root, found from this file's location.
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // HTTPTransportTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent().path
    static let ca = "\(root)/certs/ca.pem"
    static let serverCertificate = "\(root)/certs/server.pem"
    static let serverKey = "\(root)/certs/server.key"
    static let clientCertificate = "\(root)/certs/client.pem"
    static let clientKey = "\(root)/certs/client.key"

    /// The server TLS configuration every TLS test starts from.
    static func serverTLS() -> TLSConfiguration {
        .makeServerConfiguration(certificateChainPath: serverCertificate, privateKeyPath: serverKey)
    }
}

/// An `HTTPServer` on a free port of 127.0.0.1 (or `host`), shut down by `shutdown()`.
final class TestServer: Sendable {
    let server: HTTPServer

    /// Starts a server; `configure` adjusts the configuration first (limits, TLS, host).
    init(tls: Bool = false, host: String = "127.0.0.1", handler: any HTTPServerHandler,
         configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws {
        var configuration = HTTPServerConfiguration(host: host, port: 0)
        if tls { configuration.tls = TestCertificates.serverTLS() }
        configure(&configuration)
        server = try HTTPServer(configuration: configuration, handler: handler)
    }

    var port: Int { server.localAddress.port }
    var metrics: TransportMetrics { server.metrics }

    /// `http://127.0.0.1:PORT/path` or the https form; IPv6 hosts get brackets.
    func url(_ path: String = "/") -> String {
        let scheme = server.configuration.tls == nil ? "http" : "https"
        return "\(scheme)://\(server.localAddress)\(path)"
    }

    /// Shuts the server down, giving open connections a short grace period.
    func shutdown() {
        server.shutdown(gracePeriod: .milliseconds(200))
    }
}

/// A handler that records every request and counts opened connections, then answers via `body`.
///
/// The default answer is 200 with `ok <method> <path> <body bytes>`.
final class RecordingHandler: HTTPServerHandler {
    private let recorded = Mutex<[HTTPRequest]>([])
    private let opened = Atomic<Int>(0)
    private let body: @Sendable (HTTPRequest, HTTPResponder) -> Void

    init(_ body: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void = { request, responder in
        responder.respond(RecordingHandler.defaultResponse(request))
    }) {
        self.body = body
    }

    static func defaultResponse(_ request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(status: 200, text: "ok \(request.method) \(request.path) \(request.body.count)\n")
    }

    var requests: [HTTPRequest] { recorded.withLock { $0 } }
    var openedConnections: Int { opened.load(ordering: .relaxed) }

    func handle(_ request: HTTPRequest, responder: HTTPResponder) {
        recorded.withLock { $0.append(request) }
        body(request, responder)
    }

    func connectionOpened(_ connection: HTTPConnection) { opened.wrappingAdd(1, ordering: .relaxed) }
}

/// Polls `condition` until it holds or `timeout` passes; returns its last value.
func eventually(timeout: Duration = .seconds(20), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Runs blocking `body` on its own thread, so it cannot be starved by (or starve) the
/// two-thread cooperative pool that the tests share.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread { continuation.resume(returning: body()) }
    }
}
