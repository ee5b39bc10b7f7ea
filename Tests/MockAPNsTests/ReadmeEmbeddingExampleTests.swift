import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import Testing

/// The README's embedding example, kept compiling and true.
@Suite(.timeLimit(.minutes(3)))
struct ReadmeEmbeddingExampleTests {
    /// With no arguments, as a package depending on this one calls it: the bundled test
    /// material, nothing read from the checkout.
    @Test func theReadmeExampleWaitsForAPushAndSetsAFault() async throws {
        let mock = try MockAPNsServer.startForTesting()
        defer { mock.stop() }
        let certificates = MockTestCertificates.bundled
        #expect(mock.trustRootsPath == certificates.caPath)
        let client = try MockAPNsServerTests.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let key = try ES256PrivateKey(contentsOfFile: certificates.providerKeyPath())
        let token = try JWTSigner(key: key, keyID: MockConfiguration.defaultKeyIDs[0])
            .makeProviderToken(teamID: MockConfiguration.defaultTeamID)

        let accepted = try await client.send(MockAPNsServerTests.push(token: token))
        #expect(accepted.status == 200)
        let result = await mock.capture.wait(for: CaptureFilter(topic: "com.example.app"), count: 1, timeout: .seconds(5))
        #expect(result.isSatisfied)
        try mock.faults.add(FaultRule(id: "down", action: .unavailable(.serviceUnavailable)))
        let down = try await client.send(MockAPNsServerTests.push(token: token))
        #expect(down.status == 503)
        await client.close()
    }

    /// The bundled files are the checkout's `certs/`, copied by SwiftPM into MockAPNs'
    /// resources, not a stale or partial copy.
    @Test func theBundledMaterialIsTheCheckoutsCerts() throws {
        let bundled = MockTestCertificates.bundled
        #expect(bundled.directory != MockAPNsServerTests.certs)
        let checkout = MockTestCertificates(directory: MockAPNsServerTests.certs)
        let pairs = [
            (bundled.caPath, checkout.caPath), (bundled.serverCertificatePath, checkout.serverCertificatePath),
            (bundled.serverKeyPath, checkout.serverKeyPath), (bundled.clientCertificatePath, checkout.clientCertificatePath),
            (bundled.clientKeyPath, checkout.clientKeyPath),
        ] + MockConfiguration.defaultKeyIDs.map { (bundled.providerKeyPath(keyID: $0), checkout.providerKeyPath(keyID: $0)) }
        for (shipped, original) in pairs {
            let shippedBytes = try Data(contentsOf: URL(fileURLWithPath: shipped))
            #expect(!shippedBytes.isEmpty, "\(shipped)")
            #expect(shippedBytes == (try Data(contentsOf: URL(fileURLWithPath: original))), "\(shipped)")
        }
    }
}
