/// A P-256 public key that verifies ES256 (ECDSA with SHA-256) signatures.
///
/// Load it from a SubjectPublicKeyInfo PEM, derive it from a private key, or build it from
/// a JSON Web Key. Any other key type or curve is rejected with an error naming what was
/// found.
///
/// ```swift
/// let key = try ES256PublicKey(pemRepresentation: pem)          // BEGIN PUBLIC KEY
/// let same = try ES256PublicKey(jwk: #"{"kty":"EC","crv":"P-256","x":"…","y":"…"}"#)
/// let ok = key.isValidSignature(signature, for: Array("message".utf8))
/// ```
///
/// Values are cheap to copy and safe to share between threads. Their `description` never
/// shows key material.
public struct ES256PublicKey: Sendable {
    let key: EVPKey
    /// The public point `04||x||y`, kept so that exporting the key cannot fail.
    private let point: [UInt8]

    /// Wraps a validated P-256 key, reading its public point once.
    init(key: EVPKey) throws(ES256KeyError) {
        self.key = key
        self.point = try key.uncompressedPoint()
    }

    /// Loads a public key from PEM text holding a `BEGIN PUBLIC KEY` block.
    ///
    /// - Throws: ``ES256KeyError`` with code `.malformedPEM`, `.unsupportedKeyType` or
    ///   `.unsupportedCurve`.
    public init(pemRepresentation: String) throws(ES256KeyError) {
        try self.init(key: EVPKey.publicKey(pem: pemRepresentation))
    }

    /// Loads a public key from a PEM file holding a `BEGIN PUBLIC KEY` block.
    ///
    /// - Throws: ``ES256KeyError`` with code `.unreadableFile`, or as
    ///   ``init(pemRepresentation:)``.
    public init(contentsOfFile path: String) throws(ES256KeyError) {
        try self.init(pemRepresentation: try readKeyFile(path))
    }

    /// Builds a public key from a JSON Web Key (`kty` `EC`, `crv` `P-256`, `x`, `y`).
    ///
    /// - Throws: ``ES256KeyError`` with code `.invalidJWK`, `.unsupportedKeyType`,
    ///   `.unsupportedCurve` or `.invalidPublicKey`.
    public init(jwk: JSONWebKey) throws(ES256KeyError) {
        guard jwk.keyType == "EC" else {
            throw ES256KeyError(.unsupportedKeyType, "expected a JWK with kty \"EC\", found kty \"\(jwk.keyType)\"")
        }
        guard jwk.curve == "P-256" else {
            throw ES256KeyError(.unsupportedCurve, "expected a JWK with crv \"P-256\", found crv \"\(jwk.curve ?? "(missing)")\"")
        }
        guard let xText = jwk.x, let yText = jwk.y else {
            throw ES256KeyError(.invalidJWK, "an EC JWK needs both \"x\" and \"y\"")
        }
        guard let x = Base64URL.decode(xText), let y = Base64URL.decode(yText) else {
            throw ES256KeyError(.invalidJWK, "\"x\" and \"y\" must be unpadded base64url")
        }
        guard x.count == 32, y.count == 32 else {
            throw ES256KeyError(.invalidJWK, "P-256 \"x\" and \"y\" must decode to 32 bytes each, found \(x.count) and \(y.count)")
        }
        try self.init(key: EVPKey.publicKey(x: x, y: y))
    }

    /// Builds a public key from JWK JSON text.
    ///
    /// - Throws: ``ES256KeyError`` as ``init(jwk:)``.
    public init(jwk json: String) throws(ES256KeyError) {
        try self.init(jwk: try JSONWebKey(json: json))
    }

    /// The key as a JSON Web Key, optionally labelled with a key ID.
    ///
    /// ```swift
    /// let json = key.jwk(keyID: "ABC123DEFG").json  // {"kty":"EC","crv":"P-256","x":"…","y":"…","kid":"ABC123DEFG"}
    /// ```
    public func jwk(keyID: String? = nil) -> JSONWebKey {
        JSONWebKey(
            keyType: "EC", curve: "P-256",
            x: Base64URL.encode(point[1..<33]), y: Base64URL.encode(point[33..<65]),
            keyID: keyID)
    }

    /// Whether `signature` is a valid ES256 signature of `message` under this key.
    ///
    /// - Parameters:
    ///   - signature: The raw JOSE form `r||s`, exactly 64 bytes. Any other length, or r
    ///     or s outside 1...n-1, is invalid.
    ///   - message: The signed bytes (for a JWT, `header.payload` as ASCII).
    public func isValidSignature(_ signature: some Collection<UInt8>, for message: some Collection<UInt8>) -> Bool {
        let signature = Array(signature)
        let message = Array(message)
        guard signature.count == ECDSASignatureCodec.rawByteCount else { return false }
        var digest = [UInt8](repeating: 0, count: SHA256Digest.byteCount)
        message.withUnsafeBytes { bytes in
            digest.withUnsafeMutableBufferPointer { output in
                if let base = output.baseAddress { SHA256Digest.hash(bytes, into: base) }
            }
        }
        return signature.withUnsafeBytes { raw in
            digest.withUnsafeBufferPointer { digest in
                guard let rawBase = raw.baseAddress, let digestBase = digest.baseAddress else { return false }
                return (try? key.verify(digest: digestBase, rawSignature: rawBase)) ?? false
            }
        }
    }
}

extension ES256PublicKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the algorithm only, never the key.
    public var description: String { "ES256PublicKey(P-256)" }
    /// The same as `description`: no key material, even in the debugger.
    public var debugDescription: String { description }
    /// An empty mirror, so `dump` and reflection show no key material.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
