/// Why the test material shipped with MockAPNs could not be found.
public enum MockTestCertificatesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No folder tried held the files (`ca.pem` first among them).
    case notFound(searched: [String])

    public var description: String {
        switch self {
        case let .notFound(searched):
            return "the test certificates shipped with MockAPNs are in none of \(searched.joined(separator: ", ")); "
                + "keep the binary beside its '…_MockAPNs.resources' folder, or pass a folder with a copy of certs/"
        }
    }
}
