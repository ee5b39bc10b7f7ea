import HTTPTransport
import JWTVerify

/// What validation remembers about one HTTP/2 connection's authentication.
///
/// Each connection's ``ValidatingPushHandler`` holds one, made when the connection opens,
/// and passes it `inout` to ``PushValidator/validate(_:auth:)`` for every push on that
/// connection, serially. Used directly, as tests do:
///
/// ```swift
/// var auth = ConnectionAuthState(environment: .sandbox, peerCertificate: connection.peerCertificate)
/// let result = validator.validate(request, auth: &auth)
/// if auth.allowsConcurrentStreams { raiseMaxConcurrentStreams() }
/// ```
public struct ConnectionAuthState: Sendable {
    /// Provider-token rules' memory: the bound team and key, and the token in force.
    public var tokenState: APNsConnectionTokenState
    /// The client certificate's identity, when the connection presented one. Such a
    /// connection uses certificate auth, and `authorization` headers are ignored.
    public let certificate: CertificateIdentity?
    /// Whether a push on this connection has carried a valid provider token.
    public internal(set) var hasSeenValidToken = false
    /// The validator state of the first push whose provider token was accepted: its
    /// registry's apps are the ones APNs bound the connection to, so an app registered
    /// later is refused here until the client opens a new connection.
    var boundApps: PushValidator.Storage?

    /// The token whose fingerprint was last computed, so a reused token is hashed once.
    var fingerprintedToken: String?
    var fingerprint: String?

    /// State for a new connection.
    ///
    /// - Parameters:
    ///   - environment: The environment the listener serves.
    ///   - certificate: The client certificate's identity, if one was presented.
    public init(environment: APNsEnvironment, certificate: CertificateIdentity? = nil) {
        tokenState = APNsConnectionTokenState(environment: environment)
        self.certificate = certificate
    }

    /// State for a new connection, reading the identity from the TLS peer certificate.
    public init(environment: APNsEnvironment, peerCertificate: PeerCertificate?) {
        self.init(environment: environment, certificate: peerCertificate.map(CertificateIdentity.init(certificate:)))
    }

    /// The environment the connection serves.
    public var environment: APNsEnvironment { tokenState.environment }

    /// Whether APNs would allow this connection many concurrent streams.
    ///
    /// Apple: a token connection gets one stream until a request carries a valid token.
    /// Certificate connections are authenticated by the handshake.
    public var allowsConcurrentStreams: Bool { certificate != nil || hasSeenValidToken }
}
