import Foundation
import Testing

@testable import JWTVerify
import OpenSSLSupport

/// Every OpenSSL call leaves the calling thread's error queue empty, whether it succeeded
/// or failed, and failures carry what the queue held.
@Suite struct OpenSSLErrorQueueTests {
    @Test func successfulOperationsLeaveTheQueueEmpty() throws {
        let key = try TestKeys.apnsPrivateKey()
        #expect(OpenSSLErrorQueue.isEmpty)
        _ = try ES256PrivateKey(pemRepresentation: try TestKeys.sec1PrivateKeyPEM())
        #expect(OpenSSLErrorQueue.isEmpty)
        _ = try ES256PublicKey(contentsOfFile: TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem"))
        #expect(OpenSSLErrorQueue.isEmpty)
        _ = try ES256PublicKey(jwk: key.publicKey.jwk())
        #expect(OpenSSLErrorQueue.isEmpty)
        let signature = try key.signature(for: [1])
        #expect(key.publicKey.isValidSignature(signature, for: [1]))
        #expect(!key.publicKey.isValidSignature(signature, for: [2]))
        #expect(OpenSSLErrorQueue.isEmpty)
        _ = try HMACSHA256.authenticationCode(for: [1], using: [2])
        #expect(OpenSSLErrorQueue.isEmpty)
    }

    @Test func failuresCarryTheQueueAndEmptyIt() throws {
        let garbage = "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n"
        let error = #expect(throws: ES256KeyError.self) { try ES256PublicKey(pemRepresentation: garbage) }
        #expect(error?.openSSLErrors.isEmpty == false)
        #expect(error?.openSSLErrors.allSatisfy { $0.code != 0 && !$0.reason.isEmpty } == true)
        #expect(error?.description.contains("[OpenSSL: ") == true)
        #expect(OpenSSLErrorQueue.isEmpty)
    }
}
