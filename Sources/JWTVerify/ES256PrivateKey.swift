internal import COpenSSL

/// A P-256 private key that signs ES256 (ECDSA with SHA-256), such as an APNs `.p8` key.
///
/// ```swift
/// let key = try ES256PrivateKey(contentsOfFile: "AuthKey_ABC123DEFG.p8")
/// let signature = try key.signature(for: Array("header.payload".utf8))  // 64 bytes r||s
/// let verifier = key.publicKey
/// ```
///
/// Values are safe to share between threads. `description`, `debugDescription` and
/// reflection (`dump`) show only `ES256PrivateKey(P-256, redacted)`.
public struct ES256PrivateKey: Sendable {
    let key: EVPKey

    /// The matching public key. It holds only the public point.
    public let publicKey: ES256PublicKey

    /// Loads a private key from PEM text: PKCS#8 (`BEGIN PRIVATE KEY`, the `.p8` format)
    /// or SEC1 (`BEGIN EC PRIVATE KEY`). Encrypted keys are refused, never prompted for.
    ///
    /// - Throws: ``ES256KeyError`` with code `.malformedPEM`, `.unsupportedKeyType` or
    ///   `.unsupportedCurve`.
    public init(pemRepresentation: String) throws(ES256KeyError) {
        key = try EVPKey.privateKey(pem: pemRepresentation)
        publicKey = try ES256PublicKey(key: key.publicOnly())
    }

    /// Loads a private key from a `.p8` (or SEC1 PEM) file.
    ///
    /// - Throws: ``ES256KeyError`` with code `.unreadableFile`, or as
    ///   ``init(pemRepresentation:)``.
    public init(contentsOfFile path: String) throws(ES256KeyError) {
        try self.init(pemRepresentation: try readKeyFile(path))
    }

    /// Signs `message` with ES256.
    ///
    /// - Returns: The raw JOSE signature `r||s`, 64 bytes.
    /// - Throws: ``ES256KeyError`` with code `.cryptoFailure` if OpenSSL fails.
    public func signature(for message: some Collection<UInt8>) throws(ES256KeyError) -> [UInt8] {
        let message = Array(message)
        return try message.withUnsafeBufferPointer { buffer throws(ES256KeyError) -> [UInt8] in
            try signature(forMessageBytes: UnsafeRawBufferPointer(buffer))
        }
    }

    func signature(forMessageBytes bytes: UnsafeRawBufferPointer) throws(ES256KeyError) -> [UInt8] {
        try withStackBytes(SHA256Digest.byteCount) { (digest) throws(ES256KeyError) -> [UInt8] in
            guard let base = digest.baseAddress else { throw ES256KeyError(.cryptoFailure, "no digest buffer") }
            SHA256Digest.hash(bytes, into: base)
            do throws(CryptoError) {
                return try key.sign(digest: base)
            } catch {
                throw ES256KeyError(.cryptoFailure, error.message, openSSLErrors: error.openSSLErrors)
            }
        }
    }
}

extension ES256PrivateKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Names the algorithm only, never the key.
    public var description: String { "ES256PrivateKey(P-256, redacted)" }
    /// The same as `description`: no key material, even in the debugger.
    public var debugDescription: String { description }
    /// An empty mirror, so `dump` and reflection show no key material.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
