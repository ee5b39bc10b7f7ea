import Foundation
import Testing
@testable import HTTPTransport

/// Mutual TLS: the client certificate is required, verified, and exposed to the handler.
@Suite(.timeLimit(.minutes(1)))
struct ServerMutualTLSTests {
    static func mutualTLSServer(_ handler: RecordingHandler) throws -> TestServer {
        try TestServer(tls: true, handler: handler) { configuration in
            configuration.tls?.peerVerification = .required
            configuration.tls?.trustRootsPath = TestCertificates.ca
        }
    }

    @Test func clientCertificateIsVerifiedAndExposed() async throws {
        let handler = RecordingHandler()
        let server = try Self.mutualTLSServer(handler)
        defer { server.shutdown() }

        let reply = try await Curl.request(["--http2", "--cacert", TestCertificates.ca, "--cert", TestCertificates.clientCertificate,
                                            "--key", TestCertificates.clientKey, server.url("/3/device/abc")])

        #expect(reply.result.succeeded, "\(reply.result.stderr)")
        #expect(reply.version == "2")
        #expect(reply.status == 200)
        let request = try #require(handler.requests.first)
        let certificate = try #require(request.connection.peerCertificate)
        #expect(certificate.subjectAttribute("UID") == "com.example.app")
        #expect(certificate.subjectAttribute("OU") == "TEAM000001")
        #expect(certificate.extension(oid: "1.2.840.113635.100.6.3.1") != nil)
        #expect(certificate.extension(oid: "1.2.840.113635.100.6.3.2") != nil)
        #expect(certificate.subject.contains("UID=com.example.app"))
        #expect(certificate.issuer.contains("swift-apns-mock Test Root CA"))
    }

    @Test func handshakeWithoutClientCertificateFails() async throws {
        let handler = RecordingHandler()
        let server = try Self.mutualTLSServer(handler)
        defer { server.shutdown() }

        let reply = try await Curl.request(["--http2", "--cacert", TestCertificates.ca, server.url("/3/device/abc")])

        #expect(!reply.result.succeeded)
        #expect(reply.status == 0)
        #expect(handler.requests.isEmpty)
        #expect(handler.openedConnections == 0)
        #expect(await eventually { server.metrics.openConnections == 0 })
        // The failed handshake does not stop the server from serving a client that has a certificate.
        let good = try await Curl.request(["--http2", "--cacert", TestCertificates.ca, "--cert", TestCertificates.clientCertificate,
                                           "--key", TestCertificates.clientKey, server.url("/after")])
        #expect(good.status == 200)
    }

    @Test func serverWithoutMutualTLSHasNoPeerCertificate() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: true, handler: handler)
        defer { server.shutdown() }

        let reply = try await Curl.request(["--http2", "--cacert", TestCertificates.ca, "--cert", TestCertificates.clientCertificate,
                                            "--key", TestCertificates.clientKey, server.url("/")])

        #expect(reply.status == 200)
        #expect(try #require(handler.requests.first).connection.peerCertificate == nil)
    }
}

@Suite struct TLSCredentialErrorTests {
    @Test func aMissingCertificateFileIsNamedPlainly() {
        var configuration = HTTPServerConfiguration()
        configuration.tls = .makeServerConfiguration(certificateChainPath: "/nonexistent/server.pem", privateKeyPath: TestCertificates.serverKey)
        #expect(throws: TransportError.invalidCredentials(path: "/nonexistent/server.pem", reason: "No such file or directory")) {
            _ = try HTTPServer(configuration: configuration, handler: RecordingHandler())
        }
    }

    @Test func aFileThatIsNotPEMSaysSo() throws {
        var configuration = HTTPServerConfiguration()
        configuration.tls = .makeServerConfiguration(certificateChainPath: TestCertificates.root + "/Package.swift", privateKeyPath: TestCertificates.serverKey)
        let error = #expect(throws: TransportError.self) {
            _ = try HTTPServer(configuration: configuration, handler: RecordingHandler())
        }
        #expect(error?.description.contains("not a PEM certificate chain") == true, "\(String(describing: error))")
    }
}
