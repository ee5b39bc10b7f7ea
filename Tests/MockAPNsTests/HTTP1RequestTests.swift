import Foundation
import MockAPNs
import PushTestSupport
import Testing

/// APNs speaks HTTP/2 only; an HTTP/1.1 client is told so in HTTP/1.1, not left with a
/// GOAWAY it cannot read ("Received HTTP/0.9").
@Suite(.timeLimit(.minutes(3)))
struct HTTP1RequestTests {
    @Test(arguments: [true, false])
    func anHTTP1RequestGets505SayingAPNsSpeaksHTTP2Only(tls: Bool) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { $0.server.tlsEnabled = tls }
        defer { mock.stop() }
        let url = "\(mock.sandboxURL)/3/device/\(Acceptance.deviceToken)"
        let tlsArguments = tls ? ["--cacert", "\(Acceptance.certs)/ca.pem"] : []
        let result = try await onThread {
            try ChildProcess.run("curl", ["-sS", "--max-time", "10", "--http1.1", "-H", "apns-topic: com.example.app", "-d", Acceptance.alertBody,
                                          "-w", "\n%{http_version} %{http_code}"] + tlsArguments + [url])
        }

        #expect(result.stdout == "APNs speaks HTTP/2 only, and so does this mock: send the request over HTTP/2 "
            + "(curl --http2 over TLS, --http2-prior-knowledge without TLS)\n\n1.1 505", "\(result.stdout) \(result.stderr)")
        #expect(mock.metrics.http1Requests == 1)
        #expect(mock.metrics.prometheusText().contains(#"apns_mock_http1_requests_total{environment="sandbox"} 1"#))
        #expect(mock.capture.records().isEmpty, "not a push")
        #expect(try await Acceptance.freshPushStatus(mock) == 200, "HTTP/2 is served as before")
    }
}
