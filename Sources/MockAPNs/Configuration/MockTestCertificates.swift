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

    /// The set shipped with MockAPNs, wherever ``locateBundled()`` finds it.
    ///
    /// If the files are in none of the places it looks, the paths point into the first of
    /// them and starting a mock with them fails with an error naming the missing file; call
    /// ``locateBundled()`` to get the places searched, or use ``init(directory:)``.
    public static var bundled: MockTestCertificates {
        do {
            return try locateBundled()
        } catch {
            return MockTestCertificates(directory: bundledCandidates()[0])
        }
    }

    /// Finds the set shipped with MockAPNs: in the SwiftPM resource bundle beside the
    /// running binary (a test runner or an executable in its build folder, or a binary
    /// installed together with its `…_MockAPNs.resources` folder), else in the package's
    /// source folder (`Sources/MockAPNs/TestCertificates`, present in a checkout and in a
    /// dependent package's `.build/checkouts`).
    ///
    /// It never stops the process: SwiftPM's own `Bundle.module` does when its bundle is in
    /// neither place it knows, as for a test binary copied away from its build.
    ///
    /// - Throws: ``MockTestCertificatesError/notFound(searched:)`` with every folder tried.
    public static func locateBundled() throws(MockTestCertificatesError) -> MockTestCertificates {
        try first(of: bundledCandidates())
    }

    /// The first of `candidates` that holds the material.
    static func first(of candidates: [String]) throws(MockTestCertificatesError) -> MockTestCertificates {
        for directory in candidates where FileManager.default.fileExists(atPath: ConfigurationPath.join(directory, "ca.pem")) {
            return MockTestCertificates(directory: directory)
        }
        throw .notFound(searched: candidates)
    }

    /// The folders ``locateBundled()`` tries, in order.
    ///
    /// The bundle's name starts with the name the depending package gives this one, so it is
    /// found by its `_MockAPNs` suffix rather than spelled out.
    static func bundledCandidates(
        binaryFolder: URL = Bundle.main.bundleURL, sourceFile: String = #filePath
    ) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: binaryFolder.path)) ?? []
        let bundles = entries.filter { $0.hasSuffix("_MockAPNs.resources") || $0.hasSuffix("_MockAPNs.bundle") }.sorted()
        let beside = bundles.flatMap { name in
            let bundle = binaryFolder.appendingPathComponent(name)
            // Linux bundles are plain folders; an Apple bundle keeps its files in Contents/Resources.
            return [bundle.appendingPathComponent("TestCertificates").path,
                    bundle.appendingPathComponent("Contents/Resources/TestCertificates").path]
        }
        // This file is Sources/MockAPNs/Configuration/MockTestCertificates.swift.
        let source = URL(fileURLWithPath: sourceFile).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("TestCertificates").path
        return beside + [source]
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
