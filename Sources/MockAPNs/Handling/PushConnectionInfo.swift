import HTTPTransport
import JWTVerify

/// What a listener knows about an HTTP/2 connection when it opens, for the
/// ``PushHandlerFactory`` that makes the connection's handler.
public struct PushConnectionInfo: Sendable {
    /// Unique within the process: the ``PushRequest/connectionID`` of every push on it.
    public var id: UInt64
    /// The environment the listener serves.
    public var environment: APNsEnvironment
    /// The client's TLS certificate, when the client presented one and it verified against
    /// the listener's client CA; nil on a token connection.
    public var peerCertificate: PeerCertificate?
    /// What the client certificate says about bundle ID, topics and environments, read
    /// once here; nil without a certificate.
    public var certificate: CertificateIdentity?

    /// A connection as TLS set it up, reading the identity from the peer certificate.
    public init(id: UInt64, environment: APNsEnvironment, peerCertificate: PeerCertificate?) {
        self.id = id
        self.environment = environment
        self.peerCertificate = peerCertificate
        certificate = peerCertificate.map(CertificateIdentity.init(certificate:))
    }

    /// A connection whose certificate identity is stated directly, as tests and embedders
    /// without TLS use.
    public init(id: UInt64, environment: APNsEnvironment, certificate: CertificateIdentity?) {
        self.id = id
        self.environment = environment
        peerCertificate = nil
        self.certificate = certificate
    }
}
