import Foundation
import PushTestSupport

/// Runs python scripts to completion (through `ChildProcess`, not Foundation's `Process`).
enum ProcessRunner {
    /// Output and errors together, as a person would read them.
    static func python(_ script: String, arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let result = try ChildProcess.run("python3", ["-c", script] + arguments, environment: merged)
        return (result.status, result.stdout + result.stderr)
    }
}
