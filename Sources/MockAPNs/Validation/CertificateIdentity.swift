import HTTPTransport
import JWTVerify

/// What a client certificate says about who may push where: the app's bundle ID (the
/// subject UID), the topics it covers and the environments it is valid for.
///
/// Built from the TLS peer certificate once per connection, or directly in tests.
///
/// ```swift
/// let identity = CertificateIdentity(certificate: peer)
/// identity.bundleID        // "com.example.app"
/// identity.coveredTopics   // ["com.example.app"] without a topics extension
/// ```
public struct CertificateIdentity: Sendable, Hashable {
    /// The subject's UID: the app's bundle ID, which is also the default topic.
    public var bundleID: String?
    /// Topics from Apple's topics extension, in certificate order; empty without it.
    public var topics: [String]
    /// Environments from Apple's environment extensions.
    public var environments: Set<APNsEnvironment>
    /// Why the certificate cannot be an APNs provider certificate, or nil when it can.
    public var problem: String?

    /// An identity stated directly, as tests and embedders without TLS use.
    public init(bundleID: String?, topics: [String] = [], environments: Set<APNsEnvironment>, problem: String? = nil) {
        self.bundleID = bundleID
        self.topics = topics
        self.environments = environments
        self.problem = problem
    }

    /// Reads the identity from a peer certificate.
    ///
    /// A certificate without a subject UID, without either environment extension, or
    /// with an unreadable topics extension gets a ``problem``, which validation answers
    /// with 403 `BadCertificate`.
    public init(certificate: PeerCertificate) {
        bundleID = certificate.subjectAttribute("UID")
        var environments: Set<APNsEnvironment> = []
        if certificate.extension(oid: AppleCertificateOID.developmentEnvironment) != nil { environments.insert(.sandbox) }
        if certificate.extension(oid: AppleCertificateOID.productionEnvironment) != nil { environments.insert(.production) }
        self.environments = environments
        topics = []
        problem = nil
        if let topicsExtension = certificate.extension(oid: AppleCertificateOID.topics) {
            if let list = CertificateTopicList.topics(fromDER: topicsExtension.value) {
                topics = list
            } else {
                problem = "the topics extension \(AppleCertificateOID.topics) is not a DER sequence of strings"
            }
        }
        if bundleID == nil {
            problem = "the certificate subject has no UID (the app's bundle ID)"
        } else if environments.isEmpty {
            problem = "the certificate has neither Apple environment extension (\(AppleCertificateOID.developmentEnvironment) or \(AppleCertificateOID.productionEnvironment))"
        }
    }

    /// The topics pushes may use: the topics extension when present, else the UID alone.
    public var coveredTopics: [String] {
        if !topics.isEmpty { return topics }
        return bundleID.map { [$0] } ?? []
    }

    /// The topic a push without `apns-topic` goes to: the only covered topic, or nil when
    /// the certificate covers several (APNs then answers `MissingTopic`).
    public var defaultTopic: String? {
        let covered = coveredTopics
        return covered.count == 1 ? covered[0] : nil
    }
}
