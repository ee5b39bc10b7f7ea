import Foundation
import FuzzSupport
import JWTVerify

// The JWT decoder and the two verifiers: DecodedJWT, JWTVerifier (signature by `kid`) and
// APNsProviderTokenVerifier (APNs' provider-token rules, with its caches). A token is
// verified twice on one connection, and the second answer must equal the first.
//
// Input: one option byte, then either the token text (bit 0 clear; bit 1 set: the whole
// `authorization` header instead of the bare token), or (bit 0 set) a header and a claims
// set as JSON, separated by a NUL byte, which the target encodes and signs with the test
// key ABC123DEFG: a fuzzer cannot forge ES256 signatures, and without this the rules
// after the signature check would never run.

private let now = Date(timeIntervalSince1970: 1_700_000_000)
private let signingKey = loadPrivateKey("ABC123DEFG")
private let registeredKeys: [String: APNsRegisteredKey] = [
    "ABC123DEFG": APNsRegisteredKey(publicKey: signingKey.publicKey, teamID: "TEAM000001", environments: .both, topics: nil),
    "XYZ987WXYZ": APNsRegisteredKey(
        publicKey: loadPrivateKey("XYZ987WXYZ").publicKey, teamID: "TEAM000001", environments: .sandbox,
        topics: ["com.example.other"]),
]
private let signatureVerifier = JWTVerifier(keys: registeredKeys.mapValues(\.publicKey))

private func loadPrivateKey(_ keyID: String) -> ES256PrivateKey {
    do {
        return try ES256PrivateKey(contentsOfFile: FuzzPaths.file("certs/AuthKey_\(keyID).p8"))
    } catch {
        fatalError("cannot load the test key \(keyID): \(error)")
    }
}

private func base64URL(_ bytes: [UInt8]) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}

@main
enum FuzzJWTTarget {
    static func main() { FuzzDriver.run(fuzzJWT) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWT(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let options = input.byte()
    let token: String
    if options & 1 != 0 {
        let header = input.piece(until: [0])
        let claims = input.rest()
        let signingInput = base64URL(header) + "." + base64URL(claims)
        guard let signature = try? signingKey.signature(for: Array(signingInput.utf8)) else { return 0 }
        token = signingInput + "." + base64URL(signature)
    } else {
        token = String(decoding: input.rest(), as: UTF8.self)
    }

    if let decoded = try? DecodedJWT(parsing: token) {
        _ = decoded.header.json
        _ = decoded.claims.json
        _ = try? signatureVerifier.verify(decoded)
    }
    _ = try? signatureVerifier.verify(token)

    var configuration = APNsProviderTokenVerifier.Configuration()
    configuration.cacheCapacity = 4
    let verifier = APNsProviderTokenVerifier(keys: registeredKeys, configuration: configuration, now: { now })
    var connection = APNsConnectionTokenState(environment: options & 4 != 0 ? .production : .sandbox)
    let topic = options & 8 != 0 ? "com.example.other" : "com.example.app"
    let authorization = options & 2 != 0 ? token : "bearer " + token
    let first = verify(verifier, authorization, topic, &connection)
    let second = verify(verifier, authorization, topic, &connection)
    fuzzCheck(first == second, "the same token on the same connection: \(first), then \(second)")
    return 0
}

/// The verifier's answer, as text to compare: the accepted team and key, or the error.
private func verify(
    _ verifier: APNsProviderTokenVerifier, _ authorization: String, _ topic: String, _ connection: inout APNsConnectionTokenState
) -> String {
    do {
        let accepted = try verifier.verify(authorization: authorization, topic: topic, connection: &connection)
        return "accepted \(accepted.teamID) \(accepted.keyID) \(accepted.issuedAt)"
    } catch {
        return "rejected \(error)"
    }
}
