import APNsCapture
import Foundation
import Testing

/// push-inspect reads the capture files the mock wrote before format version 2 exactly as it
/// reads version 2: the same pushes give the same findings, table and counts.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectFormatVersionTests {
    typealias P = PushInspectProcess

    /// Six pushes as the version-1 mock wrote them: accepted, spaced JSON with an uppercase
    /// token, a bad path, a text body, a binary body, a 410 with a fault.
    static let version1 = P.root.appendingPathComponent("Tests/APNsCaptureTests/Fixtures/pushes-v1.jsonl").path

    /// The same pushes as the version-2 encoder writes them.
    static func version2File() throws -> String {
        let path = NSTemporaryDirectory() + "push-inspect-v2-\(UUID().uuidString).jsonl"
        let writer = try CaptureFileWriter(path: path)
        for record in try CaptureFileReader(path: version1).readAll() { writer.append(record) }
        writer.close()
        return path
    }

    @Test func aVersion1FileAndItsVersion2TwinGiveTheSameResults() async throws {
        let version2 = try Self.version2File()
        defer { try? FileManager.default.removeItem(atPath: version2) }
        let text = try String(contentsOfFile: version2, encoding: .utf8)
        #expect(text.split(separator: "\n").count == 6 && text.split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"v":2,"#) })
        #expect(try String(contentsOfFile: Self.version1, encoding: .utf8).split(separator: "\n").allSatisfy { $0.hasPrefix(#"{"v":1,"#) })
        for arguments in [["check"], ["check", "--json"], ["check", "--profile", "hermes", "--show-values"], ["show"], ["show", "--json"], ["stats"]] {
            let old = try await P.run(arguments + [Self.version1])
            let new = try await P.run(arguments + [version2])
            #expect(old.status == new.status, "\(arguments)")
            #expect(old.stdout.replacingOccurrences(of: Self.version1, with: "FILE") == new.stdout.replacingOccurrences(of: version2, with: "FILE"),
                    "\(arguments):\n\(old.stdout)\n---\n\(new.stdout)")
            #expect(old.stderr.replacingOccurrences(of: Self.version1, with: "FILE") == new.stderr.replacingOccurrences(of: version2, with: "FILE"),
                    "\(arguments)")
        }
        // Not an empty comparison: the pushes were read and judged.
        let checked = try await P.run(["check", Self.version1])
        #expect(checked.stdout.contains("checked 6 pushes"), "\(checked.stdout)")
        #expect(checked.status == 1, "the rejected and malformed pushes have findings: \(checked.stdout)")
    }
}
