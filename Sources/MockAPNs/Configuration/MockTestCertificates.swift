import Foundation

/// The test CA, certificates and provider keys the zero-configuration mock runs with.
///
/// ``bundled`` is the set this package ships as a resource of MockAPNs (the checkout's
/// `certs/` links to the same files), so a package that depends on this one can start the
/// mock and talk to it without copying any files:
///
/// ```swift
/// let certificates = MockTestCertificates.bundled
/// let mock = try MockAPNsServer.startForTesting()
/// // A client trusting certificates.caPath, signing with certificates.providerKeyPath()
/// // (kid MockConfiguration.defaultKeyIDs[0], team MockConfiguration.defaultTeamID) ...
/// ```
///
/// FOR TESTING ONLY: these keys are published and protect nothing.
public struct MockTestCertificates: Sendable, Equatable {
    /// The folder holding the files.
    public let directory: String

    /// Test material in `directory`, laid out as `certs/generate.sh` writes it.
    public init(directory: String) {
        self.directory = directory
    }

    /// The set shipped in MockAPNs' resource bundle.
    ///
    /// SwiftPM's resource accessor looks beside the running binary, then in the build
    /// folder, and stops the process if neither holds the bundle (a test binary copied away
    /// from its build): use ``init(directory:)`` with a copy of the files there.
    public static var bundled: MockTestCertificates {
        // `Bundle.module` finds the bundle beside the test or executable binary, or where
        // SwiftPM built it; `.copy` keeps the folder's name inside the bundle.
        let resources = Bundle.module.resourceURL ?? Bundle.module.bundleURL
        return MockTestCertificates(directory: resources.appendingPathComponent("TestCertificates").path)
    }

    /// The CA that signed the server and client certificates: what a client trusts.
    public var caPath: String { file("ca.pem") }
    /// The server certificate, for `localhost`, `127.0.0.1`, `::1` and Apple's APNs host names.
    public var serverCertificatePath: String { file("server.pem") }
    /// The server certificate's private key.
    public var serverKeyPath: String { file("server.key") }
    /// A client certificate shaped like an APNs provider certificate for
    /// ``MockConfiguration/defaultBundleID``, valid in both environments (mutual TLS).
    public var clientCertificatePath: String { file("client.pem") }
    /// The client certificate's private key.
    public var clientKeyPath: String { file("client.key") }

    /// The `.p8` provider key `keyID` (team ``MockConfiguration/defaultTeamID``), which the
    /// zero-configuration mock trusts in both environments.
    public func providerKeyPath(keyID: String = MockConfiguration.defaultKeyIDs[0]) -> String {
        file("AuthKey_\(keyID).p8")
    }

    private func file(_ name: String) -> String {
        ConfigurationPath.join(directory, name)
    }
}
