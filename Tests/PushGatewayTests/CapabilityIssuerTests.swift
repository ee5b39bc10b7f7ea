import APNsCore
import Foundation
import PushGateway
import PushTestSupport
import Testing

@Suite struct CapabilityIssuerTests {
    @Test func theCapabilityIsBase64URLOfTheHMACOfTheLabelledLowercaseToken() async throws {
        let token = try #require(DeviceToken("ABAB"))
        let capability = try CapabilityIssuer(key: Array("k".utf8)).capability(for: token)
        let script = #"import hmac,hashlib,base64;print(base64.urlsafe_b64encode(hmac.new(b"k",b"hermes-capability-v1:abab",hashlib.sha256).digest()).rstrip(b"=").decode())"#
        let expected = try await onThread { try Self.python(script) }
        #expect(capability == "v1." + expected)
    }

    @Test func onlyTheSameKeyAndTokenValidate() throws {
        let token = try #require(DeviceToken(String(repeating: "ab", count: 32)))
        let other = try #require(DeviceToken(String(repeating: "cd", count: 32)))
        let issuer = CapabilityIssuer(key: Array("key-one-0123456789".utf8))
        let capability = try issuer.capability(for: token)
        #expect(issuer.isValid(capability, for: token))
        #expect(!issuer.isValid(capability, for: other))
        #expect(!CapabilityIssuer(key: Array("key-two-0123456789".utf8)).isValid(capability, for: token))
        #expect(!issuer.isValid(String(capability.dropLast()), for: token))
        #expect(!issuer.isValid("", for: token))
    }

    private static func python(_ script: String) throws -> String {
        try ProcessRunner.python(script, arguments: []).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
