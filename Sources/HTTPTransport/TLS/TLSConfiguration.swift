/// How a TLS endpoint is set up: credentials, trust and protocol negotiation.
///
/// Build one with `makeServerConfiguration(certificateChainPath:privateKeyPath:)` or
/// `makeClientConfiguration(trustRootsPath:)`; both spell out every default.
public struct TLSConfiguration: Sendable, Hashable {
    /// Whether and how the peer must present a certificate.
    public enum PeerVerification: Sendable, Hashable {
        /// Do not ask for or check a peer certificate.
        case none
        /// Ask; a certificate that is sent must chain to `trustRootsPath`.
        case optional
        /// Require a certificate that chains to `trustRootsPath`.
        case required
    }

    /// PEM file with our certificate, followed by any intermediates.
    public var certificateChainPath: String?
    /// PEM file with the private key for `certificateChainPath`.
    public var privateKeyPath: String?
    /// PEM file of CA certificates that peers are checked against.
    public var trustRootsPath: String?
    /// Peer certificate checking. Servers default to `.none`, clients to `.required`.
    public var peerVerification: PeerVerification
    /// ALPN protocols in preference order.
    public var applicationProtocols: [String]
    /// The lowest accepted protocol version; TLS 1.2, as APNs requires.
    public var minimumVersion: TLSVersion

    /// A server configuration: offers `h2` then `http/1.1`, TLS 1.2 or later, no client certificates.
    ///
    /// Set `peerVerification` and `trustRootsPath` for mutual TLS.
    public static func makeServerConfiguration(certificateChainPath: String, privateKeyPath: String) -> TLSConfiguration {
        TLSConfiguration(
            certificateChainPath: certificateChainPath,
            privateKeyPath: privateKeyPath,
            trustRootsPath: nil,
            peerVerification: .none,
            applicationProtocols: ["h2", "http/1.1"],
            minimumVersion: .v1_2)
    }

    /// A client configuration that verifies the server fully and offers `h2`.
    ///
    /// - Parameter trustRootsPath: CA certificates to trust; `nil` uses the system's.
    public static func makeClientConfiguration(trustRootsPath: String? = nil) -> TLSConfiguration {
        TLSConfiguration(
            certificateChainPath: nil,
            privateKeyPath: nil,
            trustRootsPath: trustRootsPath,
            peerVerification: .required,
            applicationProtocols: ["h2"],
            minimumVersion: .v1_2)
    }
}

/// A TLS protocol version.
public enum TLSVersion: Sendable, Hashable {
    case v1_2
    case v1_3
}
