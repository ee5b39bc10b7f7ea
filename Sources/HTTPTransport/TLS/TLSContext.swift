internal import COpenSSL
import OpenSSLSupport
internal import SystemSeam

/// Owns one `SSL_CTX`: the costly, shareable part of TLS, built once per configuration.
final class TLSContext: @unchecked Sendable {
    // Unchecked: the SSL_CTX is fully configured in init and only read afterwards,
    // which OpenSSL documents as thread-safe.
    enum Role { case server, client }

    let pointer: OpaquePointer
    let role: Role
    let configuration: TLSConfiguration

    init(configuration: TLSConfiguration, role: Role) throws(TransportError) {
        // OpenSSL's socket BIO writes with `write(2)`, which cannot be told to spare the
        // process a SIGPIPE: ignored process-wide before the first TLS connection exists.
        SystemSocket.ignoreBrokenPipeSignals()
        let method = role == .server ? TLS_server_method() : TLS_client_method()
        guard let ctx = SSL_CTX_new(method) else {
            throw .tls("SSL_CTX_new failed", entries: OpenSSLErrorQueue.drain())
        }
        pointer = ctx
        self.role = role
        self.configuration = configuration
        try configure()
    }

    deinit { SSL_CTX_free(pointer) }

    private func configure() throws(TransportError) {
        let version = configuration.minimumVersion == .v1_3 ? TLS1_3_VERSION : c_openssl_TLS1_2_VERSION()
        _ = c_openssl_SSL_CTX_set_min_proto_version(pointer, version)
        _ = c_openssl_SSL_CTX_set_options(pointer, c_openssl_SSL_OP_NO_RENEGOTIATION() | c_openssl_SSL_OP_NO_COMPRESSION())
        // Partial writes and a moving buffer let us retry SSL_write from a growing output buffer.
        // Released buffers: an idle connection gives back its record buffers (about 34 KiB)
        // until its next read or write.
        _ = c_openssl_SSL_CTX_set_mode(pointer, c_openssl_SSL_MODE_ENABLE_PARTIAL_WRITE()
            | c_openssl_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER() | c_openssl_SSL_MODE_RELEASE_BUFFERS())

        for path in [configuration.certificateChainPath, configuration.privateKeyPath, configuration.trustRootsPath] {
            if let path { try Self.checkReadable(path) }
        }
        if let chain = configuration.certificateChainPath {
            guard SSL_CTX_use_certificate_chain_file(pointer, chain) == 1 else {
                throw .invalidCredentials(path: chain, reason: "not a PEM certificate chain \(Self.reasons())")
            }
        }
        if let key = configuration.privateKeyPath {
            guard SSL_CTX_use_PrivateKey_file(pointer, key, SSL_FILETYPE_PEM) == 1 else {
                throw .invalidCredentials(path: key, reason: "not a PEM private key \(Self.reasons())")
            }
            guard SSL_CTX_check_private_key(pointer) == 1 else {
                throw .invalidCredentials(path: key, reason: "does not match the certificate \(Self.reasons())")
            }
        }
        if let roots = configuration.trustRootsPath {
            guard SSL_CTX_load_verify_locations(pointer, roots, nil) == 1 else {
                throw .invalidCredentials(path: roots, reason: "not a PEM CA file \(Self.reasons())")
            }
        } else if role == .client {
            _ = SSL_CTX_set_default_verify_paths(pointer)
        }

        switch (role, configuration.peerVerification) {
        case (_, .none):
            SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
        case (.server, .optional):
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
        case (.server, .required):
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        case (.client, _):
            SSL_CTX_set_verify(pointer, SSL_VERIFY_PEER, nil)
        }
        if role == .server, configuration.peerVerification != .none, let roots = configuration.trustRootsPath {
            // Tell clients which CAs we accept, so they pick the right certificate.
            if let names = SSL_load_client_CA_file(roots) { SSL_CTX_set_client_CA_list(pointer, names) }
        }

        switch role {
        case .server:
            // The callback's argument says whether http/1.1 may be chosen: any non-nil marker.
            let offersHTTP1 = configuration.applicationProtocols.contains("http/1.1")
            SSL_CTX_set_alpn_select_cb(pointer, selectApplicationProtocol, offersHTTP1 ? UnsafeMutableRawPointer(bitPattern: 1) : nil)
        case .client:
            var wire: [UInt8] = []
            for name in configuration.applicationProtocols {
                wire.append(UInt8(name.utf8.count))
                wire.append(contentsOf: name.utf8)
            }
            if !wire.isEmpty {
                // Unlike most OpenSSL calls, this one returns 0 on success.
                guard SSL_CTX_set_alpn_protos(pointer, wire, UInt32(wire.count)) == 0 else {
                    throw .tls("cannot set ALPN protocols", entries: OpenSSLErrorQueue.drain())
                }
            }
        }
        _ = OpenSSLErrorQueue.drain()
    }

    /// Says "no such file" plainly, instead of OpenSSL's "system library: reason 2".
    private static func checkReadable(_ path: String) throws(TransportError) {
        guard access(path, R_OK) == 0 else {
            throw .invalidCredentials(path: path, reason: String(cString: strerror(errno)))
        }
    }

    private static func reasons() -> String {
        let entries = OpenSSLErrorQueue.drain()
        return entries.isEmpty ? "" : "(\(entries.map(\.description).joined(separator: "; ")))"
    }
}

/// Server-side ALPN: `h2` if offered, else `http/1.1` (unless `argument` is nil: an
/// HTTP/2-only server), else no ALPN at all.
///
/// Declining rather than failing the handshake matters: real APNs clients offer no
/// ALPN and speak HTTP/2 by prior knowledge, which the connection then sniffs.
private func selectApplicationProtocol(
    _ ssl: OpaquePointer?,
    _ out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?,
    _ outLength: UnsafeMutablePointer<UInt8>?,
    _ input: UnsafePointer<UInt8>?,
    _ inputLength: UInt32,
    _ argument: UnsafeMutableRawPointer?
) -> Int32 {
    guard let input, let out, let outLength else { return c_openssl_SSL_TLSEXT_ERR_NOACK() }
    var http1: (UnsafePointer<UInt8>, UInt8)?
    var index = 0
    let total = Int(inputLength)
    while index < total {
        let length = Int(input[index])
        let start = index + 1
        guard length > 0, start + length <= total else { break }
        let name = UnsafeBufferPointer(start: input + start, count: length)
        if name.elementsEqual("h2".utf8) {
            out.pointee = input + start
            outLength.pointee = UInt8(length)
            return c_openssl_SSL_TLSEXT_ERR_OK()
        }
        if argument != nil, name.elementsEqual("http/1.1".utf8) { http1 = (input + start, UInt8(length)) }
        index = start + length
    }
    if let http1 {
        out.pointee = http1.0
        outLength.pointee = http1.1
        return c_openssl_SSL_TLSEXT_ERR_OK()
    }
    return c_openssl_SSL_TLSEXT_ERR_NOACK()
}
