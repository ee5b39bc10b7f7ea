/// Object identifiers Apple puts in APNs provider certificates.
///
/// Defined once here so the certificate reader and the docs cannot disagree.
public enum AppleCertificateOID {
    /// Marks a certificate valid for the development (sandbox) environment.
    public static let developmentEnvironment = "1.2.840.113635.100.6.3.1"
    /// Marks a certificate valid for the production environment.
    public static let productionEnvironment = "1.2.840.113635.100.6.3.2"
    /// Lists the topics a certificate may push to: a SEQUENCE alternating a topic string
    /// and a SEQUENCE of kinds (`app`, `voip`, `complication`).
    public static let topics = "1.2.840.113635.100.6.3.6"
}
