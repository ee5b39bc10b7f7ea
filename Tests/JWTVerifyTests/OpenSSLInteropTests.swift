import Foundation
import Testing

@testable import JWTVerify

/// `openssl dgst -sha256 -verify` accepts Swift signatures converted to DER, and Python's
/// `cryptography` agrees on that DER encoding.
@Suite struct OpenSSLInteropTests {
    func derSignature(_ raw: [UInt8]) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: ECDSASignatureCodec.maximumDERByteCount)
        let count = raw.withUnsafeBytes { rawBytes in
            output.withUnsafeMutableBufferPointer {
                ECDSASignatureCodec.writeDER(rawSignature: rawBytes.baseAddress!, into: $0.baseAddress!)
            }
        }
        return Array(output.prefix(count))
    }

    @Test func opensslVerifiesSwiftSignatures() throws {
        let key = try TestKeys.apnsPrivateKey()
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let token = try JWTSigner(key: key, keyID: TestKeys.keyID).makeProviderToken(teamID: TestKeys.teamID)
        let parts = token.split(separator: ".").map(String.init)
        let signingInput = Data((parts[0] + "." + parts[1]).utf8)
        let raw = try #require(Base64URL.decode(parts[2]))
        let der = derSignature(raw)

        let inputURL = directory.appendingPathComponent("input")
        let signatureURL = directory.appendingPathComponent("signature.der")
        try signingInput.write(to: inputURL)
        try Data(der).write(to: signatureURL)
        let publicKey = TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem")
        let accepted = try TestSupport.run(
            "openssl", ["dgst", "-sha256", "-verify", publicKey, "-signature", signatureURL.path, inputURL.path])
        #expect(accepted.status == 0)
        #expect(accepted.output.contains("Verified OK"))

        // The same signature over other bytes must fail, so the check above means something.
        try Data("tampered".utf8).write(to: inputURL)
        let rejected = try TestSupport.run(
            "openssl", ["dgst", "-sha256", "-verify", publicKey, "-signature", signatureURL.path, inputURL.path])
        #expect(rejected.status != 0)

        let script = """
            import sys
            from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
            raw = bytes.fromhex(sys.argv[1])
            print(encode_dss_signature(int.from_bytes(raw[:32], 'big'), int.from_bytes(raw[32:], 'big')).hex())
            """
        let python = try TestSupport.run("python3", ["-c", script, raw.hexString])
        #expect(python.output.trimmingCharacters(in: .whitespacesAndNewlines) == der.hexString)
    }

    @Test func swiftVerifiesOpenSSLSignaturesConvertedToRaw() throws {
        let directory = try TestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputURL = directory.appendingPathComponent("input")
        try Data("signed by the openssl CLI".utf8).write(to: inputURL)
        let signatureURL = directory.appendingPathComponent("sig.der")
        _ = try TestSupport.openssl([
            "dgst", "-sha256", "-sign", TestSupport.certificate("AuthKey_ABC123DEFG.p8"), "-out", signatureURL.path,
            inputURL.path,
        ])
        let der = try [UInt8](Data(contentsOf: signatureURL))
        let raw = try #require(der.withUnsafeBufferPointer { ECDSASignatureCodec.rawSignature(fromDER: $0) })
        let publicKey = try ES256PublicKey(contentsOfFile: TestSupport.certificate("AuthKey_ABC123DEFG.pub.pem"))
        #expect(publicKey.isValidSignature(raw, for: Array("signed by the openssl CLI".utf8)))
        #expect(!publicKey.isValidSignature(raw, for: Array("signed by the openssl CLi".utf8)))
    }
}
