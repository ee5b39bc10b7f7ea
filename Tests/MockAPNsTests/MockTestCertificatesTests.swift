import Foundation
@testable import MockAPNs
import Testing

/// Finding the test material shipped with MockAPNs, without SwiftPM's `Bundle.module`, which
/// stops the process when its bundle is not where it was built.
struct MockTestCertificatesTests {
    /// A scratch folder standing in for a binary's folder.
    static func scratchFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("certs-lookup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func makeCertificates(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("ca".utf8).write(to: folder.appendingPathComponent("ca.pem"))
    }

    /// A dependent package names this one differently, so the bundle is found by its suffix;
    /// beside the binary comes before the source folder.
    @Test func theBundleBesideTheBinaryIsFoundWhateverThePackageIsCalled() throws {
        let binary = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: binary) }
        let shipped = binary.appendingPathComponent("their-name-for-it_MockAPNs.resources/TestCertificates")
        try Self.makeCertificates(in: shipped)
        try Data().write(to: binary.appendingPathComponent("Other_Target.resources"))

        let candidates = MockTestCertificates.bundledCandidates(
            binaryFolder: binary, sourceFile: "/nowhere/Sources/MockAPNs/Configuration/MockTestCertificates.swift")
        #expect(candidates.first == shipped.path)
        #expect(candidates.last == "/nowhere/Sources/MockAPNs/TestCertificates")
        #expect(!candidates.contains { $0.contains("Other_Target") })
        #expect(try MockTestCertificates.first(of: candidates).directory == shipped.path)
    }

    /// A binary copied away from its bundle still finds the package's source folder.
    @Test func withoutABundleTheSourceFolderIsUsed() throws {
        let binary = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: binary) }
        let sources = binary.appendingPathComponent("checkout/Sources/MockAPNs")
        try Self.makeCertificates(in: sources.appendingPathComponent("TestCertificates"))

        let candidates = MockTestCertificates.bundledCandidates(
            binaryFolder: binary, sourceFile: sources.appendingPathComponent("Configuration/MockTestCertificates.swift").path)
        #expect(try MockTestCertificates.first(of: candidates).directory == sources.appendingPathComponent("TestCertificates").path)
    }

    /// Nowhere to be found: an error listing every folder tried, not a stopped process.
    @Test func missingEverywhereIsAnErrorNamingWhereItLooked() throws {
        let binary = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: binary) }
        // A bundle folder without the files does not count.
        try FileManager.default.createDirectory(
            at: binary.appendingPathComponent("x_MockAPNs.resources/TestCertificates"), withIntermediateDirectories: true)
        let candidates = MockTestCertificates.bundledCandidates(binaryFolder: binary, sourceFile: "/nowhere/a/b.swift")

        #expect(throws: MockTestCertificatesError.notFound(searched: candidates)) {
            try MockTestCertificates.first(of: candidates)
        }
        let message = MockTestCertificatesError.notFound(searched: candidates).description
        #expect(message.contains("\(binary.path)/x_MockAPNs.resources/TestCertificates") && message.contains("/nowhere/TestCertificates"))
        #expect(message.contains("pass a folder with a copy of certs/"))
    }

    /// In this package's own tests the set is the one SwiftPM copied beside the test binary.
    @Test func inTheseTestsTheSetIsTheBuiltBundle() throws {
        let located = try MockTestCertificates.locateBundled()
        #expect(located.directory.hasSuffix("_MockAPNs.resources/TestCertificates"), "\(located.directory)")
        #expect(MockTestCertificates.bundled == located)
    }

    /// A folder without the material is a thrown `MockServerError` naming the file.
    @Test func startingFromAFolderWithoutTheMaterialThrows() throws {
        let empty = try Self.scratchFolder()
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            let mock = try MockAPNsServer.startForTesting(certsDirectory: empty.path)
            mock.stop()
            Issue.record("started without test material")
        } catch {
            #expect(error.description.contains(empty.path), "\(error)")
        }
    }
}
