import Foundation
import Synchronization
import Testing

@testable import JWTVerify

/// Keys for tests: the checked-in APNs keys, and keys of other kinds generated on the fly
/// with the `openssl` CLI.
enum TestKeys {
    static let keyID = "ABC123DEFG"
    static let otherKeyID = "XYZ987WXYZ"
    static let teamID = "DEF123GHIJ"
    static let otherTeamID = "TEAM000002"

    static func apnsPrivateKey() throws -> ES256PrivateKey {
        try ES256PrivateKey(contentsOfFile: TestSupport.certificate("AuthKey_ABC123DEFG.p8"))
    }

    static func otherPrivateKey() throws -> ES256PrivateKey {
        try ES256PrivateKey(contentsOfFile: TestSupport.certificate("AuthKey_XYZ987WXYZ.p8"))
    }

    static func pem(_ name: String) throws -> String {
        try String(contentsOfFile: TestSupport.certificate(name), encoding: .utf8)
    }

    /// Runs `openssl` to produce a PEM file in a fresh directory and returns its text.
    static func generated(_ arguments: (String) -> [String]) throws -> String {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("key.pem").path
        _ = try TestSupport.openssl(arguments(output))
        return try String(contentsOfFile: output, encoding: .utf8)
    }

    static func p384PrivateKeyPEM() throws -> String {
        try generated { ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384", "-out", $0] }
    }

    static func rsaPrivateKeyPEM() throws -> String {
        try generated { ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", $0] }
    }

    static func ed25519PrivateKeyPEM() throws -> String {
        try generated { ["genpkey", "-algorithm", "ED25519", "-out", $0] }
    }

    static func publicPEM(ofPrivatePEM pem: String) throws -> String {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.pem")
        try pem.write(to: input, atomically: true, encoding: .utf8)
        return try TestSupport.openssl(["pkey", "-in", input.path, "-pubout"])
    }

    /// The APNs key converted to SEC1 (`BEGIN EC PRIVATE KEY`).
    static func sec1PrivateKeyPEM() throws -> String {
        try TestSupport.openssl(["ec", "-in", TestSupport.certificate("AuthKey_ABC123DEFG.p8")])
    }

    /// Signs an arbitrary header and claims JSON text, for tokens the signer would not mint.
    static func mint(headerJSON: String, claimsJSON: String, key: ES256PrivateKey) throws -> String {
        let input = Base64URL.encode(Array(headerJSON.utf8)) + "." + Base64URL.encode(Array(claimsJSON.utf8))
        let signature = try key.signature(for: Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }
}

/// A settable clock for rule tests.
final class TestClock: Sendable {
    private let time: Mutex<Double>

    init(_ seconds: Double) {
        time = Mutex(seconds)
    }

    var seconds: Double { time.withLock { $0 } }

    func advance(by seconds: Double) {
        time.withLock { $0 += seconds }
    }

    func set(_ seconds: Double) {
        time.withLock { $0 = seconds }
    }

    var now: @Sendable () -> Date {
        { [self] in Date(timeIntervalSince1970: self.seconds) }
    }
}
