import APNsClient
import APNsCore
import Foundation
import JWTVerify
import MockAPNs
import PushTestSupport
import Testing

/// Certificate authentication over mutual TLS with the test material in certs/.
@Suite(.timeLimit(.minutes(2)))
struct APNsClientCertificateTests {
    static func configuration(for mock: MockAPNsServer, certificate: String, key: String) throws -> APNsClientConfiguration {
        var configuration = try ClientFixtures.configuration(for: mock)
        configuration.authentication = .certificate(certificateChainPath: certificate, privateKeyPath: key)
        configuration.retryPolicy = .none
        return configuration
    }

    static let clientCertificate = "\(ClientFixtures.certs)/client.pem"
    static let clientKey = "\(ClientFixtures.certs)/client.key"

    @Test func aClientCertificateAuthenticatesWithoutAnyProviderToken() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) {
            $0.server.clientCAPath = "\(ClientFixtures.certs)/ca.pem"
        }
        defer { mock.stop() }
        let client = try APNsClient(configuration: try Self.configuration(
            for: mock, certificate: Self.clientCertificate, key: Self.clientKey))
        for environment in [APNsEnvironment.sandbox, .production] {
            let response = try await client.send(ClientFixtures.notification(), environment: environment)
            #expect(response.status == 200)
            // Like Apple's certificates, the test one also covers the app's VoIP topic.
            let voip = APNsNotification(
                deviceToken: ClientFixtures.deviceToken, pushType: .voip, topic: "\(ClientFixtures.topic).voip", payload: Array("{}".utf8))
            #expect(try await client.send(voip, environment: environment).status == 200)
        }
        #expect(client.providerTokensSigned == 0)
        let records = mock.capture.records()
        #expect(records.count == 4)
        #expect(records.allSatisfy { $0.token == nil && $0.headers["authorization"] == nil && $0.outcome.status == 200 })
        await client.shutdown()
    }

    @Test func withoutMutualTLSTheServerSeesNoCredentialsAndSaysMissingProviderToken() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs)
        defer { mock.stop() }
        let client = try APNsClient(configuration: try Self.configuration(
            for: mock, certificate: Self.clientCertificate, key: Self.clientKey))
        let result = await ClientFixtures.outcome(client, ClientFixtures.notification())
        #expect(result.failureRejection?.reason == .missingProviderToken)
        #expect(result.failureRejection?.status == 403)
        await client.shutdown()
    }

    @Test func aCertificateThatIsNotAnAPNsOneIsBadCertificateAndTheConnectionIsReplaced() async throws {
        let directory = try TestCertificateIssuer.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let certs = ClientFixtures.certs
        let plain = try await onThread {
            try TestCertificateIssuer.issue(
                "plain", subject: "/CN=not an APNs certificate/O=swift-apns-mock (TESTING ONLY)", extensions: [],
                caCertificate: "\(certs)/ca.pem", caKey: "\(certs)/ca.key", in: directory)
        }
        let mock = try MockAPNsServer.startForTesting(certsDirectory: ClientFixtures.certs) {
            $0.server.clientCAPath = "\(ClientFixtures.certs)/ca.pem"
        }
        defer { mock.stop() }
        let client = try APNsClient(configuration: try Self.configuration(for: mock, certificate: plain.certificate, key: plain.key))
        for _ in 0..<2 {
            let result = await ClientFixtures.outcome(client, ClientFixtures.notification())
            #expect(result.failureRejection?.reason == .badCertificate, "\(result)")
        }
        // APNs follows BadCertificate with GOAWAY: the second push needed a new connection.
        #expect(client.connectionsOpened(to: .sandbox) == 2)
        await client.shutdown()
    }

    @Test func unreadableCertificateFilesAreAConfigurationError() throws {
        var configuration = APNsClientConfiguration(
            authentication: .certificate(certificateChainPath: "/nonexistent/cert.pem", privateKeyPath: Self.clientKey))
        #expect(throws: APNsClientError.invalidConfiguration("certificateChainPath '/nonexistent/cert.pem' is not a readable file")) {
            try APNsClient(configuration: configuration)
        }
        configuration.authentication = .certificate(certificateChainPath: Self.clientCertificate, privateKeyPath: Self.clientKey)
        configuration.trustRootsPath = "/nonexistent/ca.pem"
        #expect(throws: APNsClientError.self) { try APNsClient(configuration: configuration) }
    }

    @Test func certificateFilesThatAreNotPEMAreAConfigurationErrorAtCreation() throws {
        // Readable, so validate() passes; the TLS context is built once, at creation, so its
        // failure is reported there instead of by the first push (on an event loop, under the
        // pool's lock, for every connection).
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-notpem-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("garbage.pem").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: garbage))
        for authentication in [APNsAuthentication.certificate(certificateChainPath: garbage, privateKeyPath: Self.clientKey),
                               .certificate(certificateChainPath: Self.clientCertificate, privateKeyPath: garbage)] {
            let configuration = APNsClientConfiguration(authentication: authentication)
            do {
                _ = try APNsClient(configuration: configuration)
                Issue.record("a client was created with \(authentication)")
            } catch {
                guard case let .invalidConfiguration(message) = error else {
                    Issue.record("expected invalidConfiguration, got \(error)")
                    continue
                }
                #expect(message.contains("https://api.push.apple.com:443"), "\(message)")
                #expect(message.contains(garbage), "\(message)")
            }
        }
    }
}
