import StrictJSON
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
    public var signature: [UInt8] {
        switch signatureStorage {
        case .raw64(var bytes): withUnsafeBytes(of: &bytes) { Array($0) }
        case .other(let bytes): bytes
        }
    }

    /// The signature bytes. The 64-byte ES256 case is held inline, because allocating an
    /// array per token costs a measurable share of an uncached verify.
    enum SignatureStorage: Sendable, Hashable {
        case raw64(SIMD64<UInt8>)
        case other([UInt8])

        var count: Int {
            switch self {
            case .raw64: ECDSASignatureCodec.rawByteCount
            case .other(let bytes): bytes.count
            }
        }
    }

    let signatureStorage: SignatureStorage
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

        header = JOSEHeader(fields: try Self.decodeObject(headerText, named: "header"))
        claims = JWTClaims(fields: try Self.decodeObject(claimsText, named: "claims"))
        signatureStorage = try Self.decodeSignature(signatureText)

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

    private static func decodeSignature(_ text: UnsafeBufferPointer<UInt8>) throws(JWTError) -> SignatureStorage {
        guard let count = Base64URL.decodedCount(ofEncodedCount: text.count), count <= stackDecodingLimit else {
            guard let bytes = Base64URL.decode(text) else {
                throw JWTError(.malformedToken, "the signature segment is not unpadded base64url")
            }
            return .other(bytes)
        }
        return try withStackBytes(count) { (buffer) throws(JWTError) -> SignatureStorage in
            guard let written = Base64URL.decode(text, into: buffer), let base = buffer.baseAddress else {
                if count == 0 { return .other([]) }
                throw JWTError(.malformedToken, "the signature segment is not unpadded base64url")
            }
            if written == ECDSASignatureCodec.rawByteCount {
                return .raw64(UnsafeRawPointer(base).loadUnaligned(as: SIMD64<UInt8>.self))
            }
            return .other(Array(UnsafeBufferPointer(rebasing: buffer[0..<written])))
        }
    }

    /// Segments up to this size are decoded on the stack; APNs tokens are far smaller.
    private static let stackDecodingLimit = 4096

    private static func decodeObject(
        _ text: UnsafeBufferPointer<UInt8>,
        named name: String
    ) throws(JWTError) -> [String: JSONValue] {
        guard let count = Base64URL.decodedCount(ofEncodedCount: text.count) else {
            throw JWTError(.malformedToken, "the \(name) segment is not unpadded base64url")
        }
        if count <= stackDecodingLimit {
            return try withStackBytes(count) { (buffer) throws(JWTError) -> [String: JSONValue] in
                try decodeObject(text, named: name, using: buffer)
            }
        }
        var heap = [UInt8](repeating: 0, count: count)
        return try heap.withUnsafeMutableBufferPointer { (buffer) throws(JWTError) -> [String: JSONValue] in
            try decodeObject(text, named: name, using: buffer)
        }
    }

    private static func decodeObject(
        _ text: UnsafeBufferPointer<UInt8>,
        named name: String,
        using buffer: UnsafeMutableBufferPointer<UInt8>
    ) throws(JWTError) -> [String: JSONValue] {
        guard let written = Base64URL.decode(text, into: buffer) else {
            throw JWTError(.malformedToken, "the \(name) segment is not unpadded base64url")
        }
        let value: JSONValue
        do {
            value = try JSONParser.parse(UnsafeBufferPointer(rebasing: buffer[0..<written]))
        } catch {
            throw JWTError(.malformedToken, "the \(name) is not valid JSON: \(error.message) at byte \(error.offset)")
        }
        guard case .object(let members) = value else {
            throw JWTError(.malformedToken, "the \(name) must be a JSON object, found \(value.typeName)")
        }
        return members
    }
}
