internal import COpenSSL
import OpenSSLSupport

/// Owns one P-256 `EVP_PKEY*` and the reusable contexts that sign or verify with it.
///
/// `@unchecked Sendable`: the key is never modified after it is built, OpenSSL 3 allows
/// concurrent read-only use of an `EVP_PKEY`, and the context pools are mutex-guarded.
final class EVPKey: @unchecked Sendable {
    /// The curve every key here must use, by its OpenSSL group name.
    static let p256GroupName = "prime256v1"

    let pointer: OpaquePointer
    private let verifiers = PKeyContextPool(operation: .verify)
    private let signers = PKeyContextPool(operation: .sign)

    private init(takingOwnershipOf pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    // MARK: Loading

    /// Reads a private key from PEM (`PRIVATE KEY` or `EC PRIVATE KEY`) and checks that it
    /// is a P-256 key.
    static func privateKey(pem: String) throws(ES256KeyError) -> EVPKey {
        let label = pemLabel(in: pem)
        switch label {
        case "PRIVATE KEY", "EC PRIVATE KEY", "RSA PRIVATE KEY", "DSA PRIVATE KEY":
            break
        case "ENCRYPTED PRIVATE KEY":
            throw ES256KeyError(.malformedPEM, "the PEM holds an encrypted private key; decrypt it first (openssl pkcs8 -in key.p8 -nocrypt)")
        case let other?:
            throw ES256KeyError(.malformedPEM, "expected a PEM block 'BEGIN PRIVATE KEY' or 'BEGIN EC PRIVATE KEY', found 'BEGIN \(other)'")
        case nil:
            throw ES256KeyError(.malformedPEM, "no PEM block found; expected '-----BEGIN PRIVATE KEY-----' (a .p8 file) or '-----BEGIN EC PRIVATE KEY-----'")
        }
        let loaded = withMemoryBIO(pem) { bio in
            PEM_read_bio_PrivateKey(bio, nil, c_openssl_refusing_password_callback(), nil)
        }
        guard let raw = loaded else {
            throw ES256KeyError.openSSL(.malformedPEM, "the 'BEGIN \(label ?? "")' block does not decode as a private key")
        }
        let key = EVPKey(takingOwnershipOf: raw)
        try key.requireP256()
        return key
    }

    /// Reads a public key from SPKI PEM (`PUBLIC KEY`) and checks that it is a P-256 key.
    static func publicKey(pem: String) throws(ES256KeyError) -> EVPKey {
        let label = pemLabel(in: pem)
        switch label {
        case "PUBLIC KEY":
            break
        case let other?:
            throw ES256KeyError(.malformedPEM, "expected a PEM block 'BEGIN PUBLIC KEY' (SubjectPublicKeyInfo), found 'BEGIN \(other)'")
        case nil:
            throw ES256KeyError(.malformedPEM, "no PEM block found; expected '-----BEGIN PUBLIC KEY-----'")
        }
        let loaded = withMemoryBIO(pem) { bio in
            PEM_read_bio_PUBKEY(bio, nil, c_openssl_refusing_password_callback(), nil)
        }
        guard let raw = loaded else {
            throw ES256KeyError.openSSL(.malformedPEM, "the 'BEGIN PUBLIC KEY' block does not decode as a public key")
        }
        let key = EVPKey(takingOwnershipOf: raw)
        try key.requireP256()
        return key
    }

    /// Builds a public-only key from the affine coordinates of a P-256 point.
    static func publicKey(x: some Collection<UInt8>, y: some Collection<UInt8>) throws(ES256KeyError) -> EVPKey {
        guard x.count == ECDSASignatureCodec.scalarByteCount, y.count == ECDSASignatureCodec.scalarByteCount else {
            throw ES256KeyError(.invalidPublicKey, "P-256 coordinates must be 32 bytes each, found \(x.count) and \(y.count)")
        }
        let point = [0x04] + Array(x) + Array(y)
        return try publicKey(uncompressedPoint: point)
    }

    /// Builds a public-only key from `04||x||y`.
    private static func publicKey(uncompressedPoint point: [UInt8]) throws(ES256KeyError) -> EVPKey {
        guard let builder = OSSL_PARAM_BLD_new() else {
            throw ES256KeyError.openSSL(.cryptoFailure, "OSSL_PARAM_BLD_new failed")
        }
        defer { OSSL_PARAM_BLD_free(builder) }
        // The builder keeps every pointer it is given until OSSL_PARAM_BLD_to_param copies
        // them: names come from static C storage, and the point stays pinned meanwhile.
        let built = point.withUnsafeBytes { bytes -> UnsafeMutablePointer<OSSL_PARAM>? in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, c_openssl_param_group_name(), c_openssl_group_prime256v1(), 0) == 1,
                OSSL_PARAM_BLD_push_octet_string(builder, c_openssl_param_pub_key(), bytes.baseAddress, bytes.count) == 1
            else { return nil }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params = built else {
            throw ES256KeyError.openSSL(.cryptoFailure, "building OpenSSL key parameters failed")
        }
        defer { OSSL_PARAM_free(params) }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw ES256KeyError.openSSL(.cryptoFailure, "EVP_PKEY_CTX_new_from_name(EC) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var raw: OpaquePointer?
        guard EVP_PKEY_fromdata_init(context) == 1,
            EVP_PKEY_fromdata(context, &raw, c_openssl_EVP_PKEY_PUBLIC_KEY(), params) == 1,
            let pkey = raw
        else {
            throw ES256KeyError.openSSL(.invalidPublicKey, "the coordinates are not a point on P-256")
        }
        let key = EVPKey(takingOwnershipOf: pkey)
        try key.requireValidPublicPoint()
        return key
    }

    /// A new public-only key holding this key's public point, so that public-key values
    /// never carry private material.
    func publicOnly() throws(ES256KeyError) -> EVPKey {
        try EVPKey.publicKey(uncompressedPoint: uncompressedPoint())
    }

    /// The public point as `04||x||y`.
    func uncompressedPoint() throws(ES256KeyError) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 1 + 2 * ECDSASignatureCodec.scalarByteCount)
        var length = 0
        let ok = point.withUnsafeMutableBytes { bytes in
            EVP_PKEY_get_octet_string_param(
                pointer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY,
                bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, &length) == 1
        }
        guard ok, length == point.count, point[0] == 0x04 else {
            throw ES256KeyError.openSSL(.cryptoFailure, "could not export the public point")
        }
        return point
    }

    // MARK: Checks

    private func requireP256() throws(ES256KeyError) {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else {
            let name = EVP_PKEY_get0_type_name(pointer).map { String(cString: $0) } ?? "unknown (id \(EVP_PKEY_get_base_id(pointer)))"
            throw ES256KeyError(.unsupportedKeyType, "expected an EC key on curve P-256, found a \(name) key")
        }
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        let ok = EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_GROUP_NAME, &buffer, buffer.count, &length) == 1
        guard ok else {
            throw ES256KeyError.openSSL(.unsupportedCurve, "expected an EC key on curve P-256 (prime256v1), found a key without a named curve")
        }
        let group = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard group == EVPKey.p256GroupName else {
            throw ES256KeyError(.unsupportedCurve, "expected an EC key on curve P-256 (prime256v1), found \(group)")
        }
    }

    private func requireValidPublicPoint() throws(ES256KeyError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else {
            throw ES256KeyError.openSSL(.cryptoFailure, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_public_check(context) == 1 else {
            throw ES256KeyError.openSSL(.invalidPublicKey, "the coordinates are not a valid point on P-256")
        }
    }

    // MARK: Signing and verifying

    /// Verifies a DER signature over a SHA-256 digest. A signature that does not verify is
    /// `false`, not an error, and leaves no residue in the error queue.
    func verify(digest: UnsafePointer<UInt8>, derSignature: UnsafePointer<UInt8>, derCount: Int) throws(CryptoError) -> Bool {
        let status = try verifiers.withContext(for: pointer) { context in
            EVP_PKEY_verify(context, derSignature, derCount, digest, SHA256Digest.byteCount)
        }
        if status != 1 { OpenSSLErrorQueue.clear() }
        return status == 1
    }

    /// Verifies a raw `r||s` signature over a SHA-256 digest, checking r and s are in
    /// 1...n-1 before OpenSSL sees them.
    func verify(digest: UnsafePointer<UInt8>, rawSignature: UnsafeRawPointer) throws(CryptoError) -> Bool {
        guard ECDSASignatureCodec.isRawSignatureInRange(rawSignature) else { return false }
        return try withStackBytes(ECDSASignatureCodec.maximumDERByteCount) { (der) throws(CryptoError) -> Bool in
            guard let base = der.baseAddress else { return false }
            let count = ECDSASignatureCodec.writeDER(rawSignature: rawSignature, into: base)
            return try verify(digest: digest, derSignature: base, derCount: count)
        }
    }

    /// Signs a SHA-256 digest and returns the raw 64-byte `r||s` signature.
    func sign(digest: UnsafePointer<UInt8>) throws(CryptoError) -> [UInt8] {
        var der = [UInt8](repeating: 0, count: ECDSASignatureCodec.maximumDERByteCount)
        var length = der.count
        let status = try der.withUnsafeMutableBufferPointer { buffer throws(CryptoError) -> Int32 in
            try signers.withContext(for: pointer) { context in
                EVP_PKEY_sign(context, buffer.baseAddress, &length, digest, SHA256Digest.byteCount)
            }
        }
        guard status == 1 else { throw CryptoError("EVP_PKEY_sign") }
        let raw = der.withUnsafeBufferPointer { buffer in
            ECDSASignatureCodec.rawSignature(fromDER: UnsafeBufferPointer(rebasing: buffer[0..<length]))
        }
        guard let raw else { throw CryptoError("EVP_PKEY_sign produced an unexpected DER signature") }
        return raw
    }

    // MARK: Helpers

    /// The label of the first PEM block (`BEGIN <label>`), if any.
    private static func pemLabel(in pem: String) -> String? {
        guard let begin = pem.firstRange(of: "-----BEGIN ") else { return nil }
        let rest = pem[begin.upperBound...]
        guard let end = rest.firstRange(of: "-----") else { return nil }
        return String(rest[..<end.lowerBound])
    }

    private static func withMemoryBIO<Result>(_ text: String, _ body: (OpaquePointer) -> Result?) -> Result? {
        var text = text
        return text.withUTF8 { bytes in
            guard let bio = BIO_new_mem_buf(bytes.baseAddress, Int32(clamping: bytes.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }
}
