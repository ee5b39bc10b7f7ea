import Foundation
import PushTestSupport

/// Runs the package's built command-line tools from the tests.
enum CommandRunner {
    /// The built `name`, in the build folder that holds the test bundle.
    static func executable(_ name: String) -> URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent(), Bundle.main.bundleURL]
            .map { $0.appendingPathComponent(name) }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// Runs `name arguments…` to completion on a thread of its own (the test pool has two
    /// threads; a blocking wait there would starve the servers under test).
    static func run(_ name: String, _ arguments: [String], environment: [String: String] = [:])
        async throws -> (status: Int32, output: String, error: String) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let result = try SpawnedProcess.run(executable(name).path, arguments, environment: environment)
                    return (result.status, result.stdout, result.stderr)
                })
            }
        }
    }
}
