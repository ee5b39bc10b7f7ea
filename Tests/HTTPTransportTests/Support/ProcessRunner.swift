import Foundation
import PushTestSupport

/// What a finished child process left behind.
struct ProcessResult: Sendable {
    var status: Int32
    var stdout: String
    var stderr: String
    var timedOut: Bool

    var succeeded: Bool { status == 0 && !timedOut }
}

struct ProcessRunnerError: Error, CustomStringConvertible {
    var description: String
}

/// Runs command-line tools (curl, openssl, python3) with a hard time limit.
enum ProcessRunner {
    /// Runs `executable` (looked up in PATH) and waits at most `timeout`, killing it after.
    ///
    /// Output goes to temporary files, so a chatty child can never block on a full pipe.
    static func run(_ executable: String, _ arguments: [String], stdin: Data? = nil,
                    timeout: Duration = .seconds(20)) async throws -> ProcessResult {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("server-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        let inURL = directory.appendingPathComponent("stdin")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: stdin ?? Data())

        // posix_spawn, not Foundation's Process: its run() crashes now and then on Linux
        // (see PushTestSupport.SpawnedProcess).
        let process = try SpawnedProcess([executable] + arguments, inputPath: inURL.path, outputPath: outURL.path,
                                       errorPath: errURL.path)
        let deadline = ContinuousClock.now + timeout
        var timedOut = false
        while process.exitCodeIfEnded() == nil {
            if ContinuousClock.now >= deadline {
                timedOut = true
                process.terminate()
                break
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        return ProcessResult(
            status: process.wait(),
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "",
            timedOut: timedOut)
    }
}

/// curl with a time limit, silent except for errors.
enum Curl {
    /// Runs `curl -sS --max-time 10 <arguments>`.
    static func run(_ arguments: [String], stdin: Data? = nil) async throws -> ProcessResult {
        try await ProcessRunner.run("curl", ["-sS", "--max-time", "10"] + arguments, stdin: stdin, timeout: .seconds(15))
    }

    /// One request; returns the body and the `%{http_version} %{http_code}` trailer split off.
    static func request(_ arguments: [String], stdin: Data? = nil) async throws -> (body: String, version: String, status: Int, result: ProcessResult) {
        let result = try await run(["-w", "\n@@%{http_version} %{http_code}"] + arguments, stdin: stdin)
        guard let marker = result.stdout.range(of: "\n@@", options: .backwards) else {
            return ("", "", 0, result)
        }
        let trailer = result.stdout[marker.upperBound...].split(separator: " ")
        let version = trailer.first.map(String.init) ?? ""
        let status = trailer.count > 1 ? Int(trailer[1]) ?? 0 : 0
        return (String(result.stdout[..<marker.lowerBound]), version, status, result)
    }
}
