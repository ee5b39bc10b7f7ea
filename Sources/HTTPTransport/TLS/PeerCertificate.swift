internal import COpenSSL
import OpenSSLSupport

/// What a peer's X.509 certificate says, copied out of OpenSSL as plain values.
///
/// Certificate-based APNs auth reads the bundle ID from the subject's UID and the
/// environments from Apple's extensions (1.2.840.113635.100.6.3.1 and .2).
public struct PeerCertificate: Sendable, Hashable {
    /// One X.509 extension.
    public struct Extension: Sendable, Hashable {
        /// Dotted object identifier, such as `2.5.29.17`.
        public var oid: String
        public var isCritical: Bool
        /// The extension's DER-encoded value (the OCTET STRING contents).
        public var value: [UInt8]
    }

    /// The subject in RFC 2253 form, such as `UID=com.example.app,CN=...`.
    public var subject: String
    /// Subject attributes in certificate order, by short name (`UID`, `CN`, `OU`, `O`, `C`).
    public var subjectAttributes: [(name: String, value: String)]
    /// The issuer in RFC 2253 form.
    public var issuer: String
    public var extensions: [Extension]
    /// The whole certificate, DER-encoded.
    public var der: [UInt8]

    /// The first subject attribute with this short name.
    public func subjectAttribute(_ name: String) -> String? {
        subjectAttributes.first { $0.name == name }?.value
    }

    /// The extension with this dotted OID, if present.
    public func `extension`(oid: String) -> Extension? {
        extensions.first { $0.oid == oid }
    }

    public static func == (lhs: PeerCertificate, rhs: PeerCertificate) -> Bool { lhs.der == rhs.der }
    public func hash(into hasher: inout Hasher) { hasher.combine(der) }

    /// Reads everything out of `x509` without taking ownership of it.
    init(borrowing x509: OpaquePointer) {
        subject = Self.name(X509_get_subject_name(x509))
        issuer = Self.name(X509_get_issuer_name(x509))
        var attributes: [(String, String)] = []
        if let name = X509_get_subject_name(x509) {
            for index in 0..<X509_NAME_entry_count(name) {
                guard let entry = X509_NAME_get_entry(name, index),
                      let object = X509_NAME_ENTRY_get_object(entry),
                      let data = X509_NAME_ENTRY_get_data(entry) else { continue }
                let nid = OBJ_obj2nid(object)
                let short = nid != NID_undef ? String(cString: OBJ_nid2sn(nid)) : Self.oid(object)
                var utf8: UnsafeMutablePointer<UInt8>?
                let length = ASN1_STRING_to_UTF8(&utf8, data)
                if length >= 0, let utf8 {
                    attributes.append((short, String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)))
                    c_openssl_free(utf8)
                }
            }
        }
        subjectAttributes = attributes
        var extensions: [Extension] = []
        for index in 0..<X509_get_ext_count(x509) {
            guard let ext = X509_get_ext(x509, index), let object = X509_EXTENSION_get_object(ext) else { continue }
            var value: [UInt8] = []
            if let data = X509_EXTENSION_get_data(ext), let bytes = ASN1_STRING_get0_data(data) {
                value = Array(UnsafeBufferPointer(start: bytes, count: Int(ASN1_STRING_length(data))))
            }
            extensions.append(Extension(oid: Self.oid(object), isCritical: X509_EXTENSION_get_critical(ext) != 0, value: value))
        }
        self.extensions = extensions
        var derPointer: UnsafeMutablePointer<UInt8>?
        let length = i2d_X509(x509, &derPointer)
        if length > 0, let derPointer {
            der = Array(UnsafeBufferPointer(start: derPointer, count: Int(length)))
            c_openssl_free(derPointer)
        } else {
            der = []
        }
        _ = OpenSSLErrorQueue.drain()
    }

    private static func oid(_ object: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 128)
        let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
        guard length > 0 else { return "" }
        return String(nulTerminated: buffer)
    }

    private static func name(_ name: OpaquePointer?) -> String {
        guard let name, let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        guard X509_NAME_print_ex(bio, name, 0, c_openssl_XN_FLAG_RFC2253()) >= 0 else { return "" }
        var data: UnsafeMutablePointer<CChar>?
        let length = c_openssl_BIO_get_mem_data(bio, &data)
        guard length > 0, let data else { return "" }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }
}
