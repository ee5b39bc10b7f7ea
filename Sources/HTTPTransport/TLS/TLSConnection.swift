internal import COpenSSL
import OpenSSLSupport
internal import SystemSeam

/// Owns one `SSL` object bound to a non-blocking socket. Loop-confined.
///
/// It holds its `TLSContext` strongly, so the context outlives every connection made from it.
final class TLSConnection {
    private let pointer: OpaquePointer
    let context: TLSContext

    enum HandshakeResult {
        case complete
        case wantRead
        case wantWrite
        case failed(TransportError)
    }

    init(context: TLSContext, fd: Int32, serverName: String? = nil) throws(TransportError) {
        guard let ssl = SSL_new(context.pointer) else {
            throw .tls("SSL_new failed", entries: OpenSSLErrorQueue.drain())
        }
        pointer = ssl
        self.context = context
        guard SSL_set_fd(ssl, fd) == 1 else {
            throw .tls("SSL_set_fd failed", entries: OpenSSLErrorQueue.drain())
        }
        switch context.role {
        case .server:
            SSL_set_accept_state(ssl)
        case .client:
            SSL_set_connect_state(ssl)
            if let serverName {
                // SNI only carries host names, never IP literals (RFC 6066).
                let isIPLiteral = SocketAddress.isNumericHost(serverName)
                if !isIPLiteral { _ = c_openssl_SSL_set_tlsext_host_name(ssl, serverName) }
                if context.configuration.peerVerification != .none {
                    let checked = isIPLiteral ? SSL_set1_host(ssl, nil) & X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName)
                                              : SSL_set1_host(ssl, serverName)
                    guard checked == 1 else {
                        throw .tls("cannot verify host '\(serverName)'", entries: OpenSSLErrorQueue.drain())
                    }
                }
            }
        }
    }

    deinit { SSL_free(pointer) }

    func handshake() -> HandshakeResult {
        let result = SSL_do_handshake(pointer)
        if result == 1 { return .complete }
        switch SSL_get_error(pointer, result) {
        case SSL_ERROR_WANT_READ: return .wantRead
        case SSL_ERROR_WANT_WRITE: return .wantWrite
        default:
            let entries = OpenSSLErrorQueue.drain()
            var message = "handshake failed"
            let verify = SSL_get_verify_result(pointer)
            if verify != X509_V_OK {
                message += ": certificate verification failed (\(String(cString: X509_verify_cert_error_string(verify))))"
            }
            return .failed(.tls(message, entries: entries))
        }
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Socket.IOResult {
        errno = 0  // a socket EOF leaves errno as it was; a stale value must not read as a reset
        let count = SSL_read(pointer, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return classify(count, errno: errno, writing: false)
    }

    func write(_ buffer: UnsafeRawBufferPointer) -> Socket.IOResult {
        guard buffer.count > 0 else { return .bytes(0) }
        errno = 0
        let count = SSL_write(pointer, buffer.baseAddress, Int32(clamping: buffer.count))
        if count > 0 { return .bytes(Int(count)) }
        return classify(count, errno: errno, writing: true)
    }

    /// Reports a failed read or write as `Socket` reports one over plain TCP: a reset on a
    /// read is an error, a peer gone on a write is the end of the connection.
    ///
    /// - Parameter systemError: `errno` right after the OpenSSL call, before anything can change it.
    private func classify(_ result: Int32, errno systemError: Int32, writing: Bool) -> Socket.IOResult {
        let code = SSL_get_error(pointer, result)
        switch code {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
            return .wouldBlock
        case SSL_ERROR_ZERO_RETURN:
            return .closed
        case SSL_ERROR_SYSCALL where systemError != 0 && systemError != EAGAIN
            && !(writing && (systemError == EPIPE || systemError == ECONNRESET)):
            _ = OpenSSLErrorQueue.drain()
            return .failed(systemError)
        default:
            // Includes a peer that closed TCP without close_notify: HTTP/2 frames say where
            // they end, so that truncation cannot cut a message short unnoticed.
            _ = OpenSSLErrorQueue.drain()
            return .closed
        }
    }

    /// Bytes already decrypted and buffered inside OpenSSL.
    var hasBufferedInput: Bool { SSL_pending(pointer) > 0 }

    /// The ALPN protocol agreed in the handshake, if any.
    var negotiatedProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(pointer, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The TLS version name, such as `TLSv1.3`.
    var protocolVersion: String { String(cString: SSL_get_version(pointer)) }

    /// The verified peer certificate, copied out as a value.
    var peerCertificate: PeerCertificate? {
        guard let x509 = SSL_get1_peer_certificate(pointer) else { return nil }
        defer { X509_free(x509) }
        return PeerCertificate(borrowing: x509)
    }

    /// Sends close_notify, best effort; the socket is closed right after.
    func shutdown() {
        _ = SSL_shutdown(pointer)
        _ = OpenSSLErrorQueue.drain()
    }
}
