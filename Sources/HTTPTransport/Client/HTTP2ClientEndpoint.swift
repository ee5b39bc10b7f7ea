import Dispatch

/// The shareable part of connecting to one server: its configuration and TLS context.
///
/// Loading certificates and keys into a TLS context reads files and parses PEM, which a
/// pool opening connections on an event loop, or under a lock, must not do for each one.
/// An endpoint does it once; every ``HTTP2Client`` made from it shares the context.
///
/// A host given by name is resolved each time a client made from it connects, on a thread
/// of its own (`getaddrinfo` blocks), never on the event loop: so new connections follow
/// the server's DNS, as APNs' rotating addresses need. An IP literal is parsed here.
///
/// ```swift
/// let endpoint = try HTTP2ClientEndpoint(configuration: HTTP2ClientConfiguration(
///     host: "api.sandbox.push.apple.com", port: 443, tls: .makeClientConfiguration()))
/// let first = HTTP2Client(endpoint: endpoint, group: group)
/// let second = HTTP2Client(endpoint: endpoint, group: group)   // same TLS context
/// ```
public final class HTTP2ClientEndpoint: Sendable {
    /// How clients made from this endpoint connect.
    public let configuration: HTTP2ClientConfiguration
    /// Nil for cleartext h2c.
    let tlsContext: TLSContext?
    /// The host's address when it is an IP literal; nil when it is a name to resolve.
    let literalAddress: SocketAddress?

    /// Loads the TLS material and checks the address.
    ///
    /// - Throws: `TransportError.invalidAddress` for a port out of range or an empty host,
    ///   or `.tls` when the TLS files cannot be loaded.
    public init(configuration: HTTP2ClientConfiguration) throws(TransportError) {
        guard (0...65535).contains(configuration.port) else {
            throw .invalidAddress("\(configuration.host):\(configuration.port) (port out of range)")
        }
        guard !configuration.host.isEmpty else { throw .invalidAddress("(empty host)") }
        self.configuration = configuration
        literalAddress = SocketAddress(literal: configuration.host, port: configuration.port)
        if var tls = configuration.tls {
            if !configuration.negotiatesALPN { tls.applicationProtocols = [] }
            tlsContext = try TLSContext(configuration: tls, role: .client)
        } else {
            tlsContext = nil
        }
    }

    /// Hands the server's address to `completion`, on `loop`: at once for an IP literal,
    /// otherwise after resolving the name on a resolver thread.
    func resolve(on loop: EventLoop, _ completion: @escaping @Sendable (Result<SocketAddress, TransportError>) -> Void) {
        if let literalAddress {
            completion(.success(literalAddress))
            return
        }
        let host = configuration.host
        let port = configuration.port
        Self.resolver.async {
            let result: Result<SocketAddress, TransportError>
            do throws(TransportError) {
                result = .success(try SocketAddress(host: host, port: port))
            } catch {
                result = .failure(error)
            }
            do throws(TransportError) {
                try loop.execute { completion(result) }
            } catch {
                // The loop has stopped: once its thread is gone, what lived on it may run
                // here, and the connection waiting for this address fails.
                loop.waitUntilExited()
                completion(.failure(error))
            }
        }
    }

    /// Name lookups run here, concurrently, so a slow DNS server holds up no event loop.
    private static let resolver = DispatchQueue(label: "HTTP2ClientEndpoint.resolver", attributes: .concurrent)
}
