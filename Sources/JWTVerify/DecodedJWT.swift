/// A JSON Web Token in compact form, decoded but **not verified**.
///
/// Decoding checks structure only: exactly three segments of strict, unpadded base64url,
/// and a header and claims set that are JSON objects. It does not look at `alg` or the
/// signature, so a rejected token (even `alg: none`) can still be shown for inspection.
/// Use ``JWTVerifier`` to trust a token.
///
/// ```swift
/// let token = try DecodedJWT(parsing: "eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJ…")
/// print(token.header.json, token.claims.json)
/// ```
public struct DecodedJWT: Sendable, Hashable {
    /// The decoded header.
    public let header: JOSEHeader
    /// The decoded claims set.
    public let claims: JWTClaims
    /// The decoded third segment, whatever its length.
    public let signature: [UInt8]
    /// SHA-256 of the signing input `header.payload`, computed while the token text was at
    /// hand so that verifying needs no second pass over it.
    let signingInputDigest: SIMD32<UInt8>

    /// Decodes a compact-serialised token.
    ///
    /// - Throws: ``JWTError`` with code `.malformedToken`.
    public init(parsing token: String) throws(JWTError) {
        var token = token
        let result = token.withUTF8 { bytes in
            Result { () throws(JWTError) in try DecodedJWT(parsing: bytes) }
        }
        self = try result.get()
    }

    /// Decodes a compact-serialised token from its UTF-8 bytes.
    init(parsing token: UnsafeBufferPointer<UInt8>) throws(JWTError) {
        var firstDot = -1
        var secondDot = -1
        for index in token.indices where token[index] == UInt8(ascii: ".") {
            if firstDot < 0 {
                firstDot = index
            } else if secondDot < 0 {
                secondDot = index
            } else {
                throw JWTError(.malformedToken, "a JWT has exactly three segments separated by '.', found more")
            }
        }
        guard secondDot >= 0 else {
            throw JWTError(.malformedToken, "a JWT has exactly three segments separated by '.', found \(firstDot < 0 ? 1 : 2)")
        }
        let headerText = UnsafeBufferPointer(rebasing: token[0..<firstDot])
        let claimsText = UnsafeBufferPointer(rebasing: token[(firstDot + 1)..<secondDot])
        let signatureText = UnsafeBufferPointer(rebasing: token[(secondDot + 1)...])

        var scratch: [UInt8] = []
        header = JOSEHeader(fields: try Self.decodeObject(headerText, named: "header", scratch: &scratch))
        claims = JWTClaims(fields: try Self.decodeObject(claimsText, named: "claims", scratch: &scratch))
        var signatureBytes: [UInt8] = []
        guard Base64URL.decode(signatureText, into: &signatureBytes) else {
            throw JWTError(.malformedToken, "the signature segment is not unpadded base64url")
        }
        signature = signatureBytes

        var digest = SIMD32<UInt8>()
        withUnsafeMutableBytes(of: &digest) { output in
            if let base = output.baseAddress {
                SHA256Digest.hash(
                    UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(token)[0..<secondDot]),
                    into: base.assumingMemoryBound(to: UInt8.self))
            }
        }
        signingInputDigest = digest
    }

    private static func decodeObject(
        _ text: UnsafeBufferPointer<UInt8>,
        named name: String,
        scratch: inout [UInt8]
    ) throws(JWTError) -> [String: JSONValue] {
        guard Base64URL.decode(text, into: &scratch) else {
            throw JWTError(.malformedToken, "the \(name) segment is not unpadded base64url")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(scratch)
        } catch {
            throw JWTError(.malformedToken, "the \(name) is not valid JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .object(let members) = value else {
            throw JWTError(.malformedToken, "the \(name) must be a JSON object, found \(value.typeName)")
        }
        return members
    }
}
