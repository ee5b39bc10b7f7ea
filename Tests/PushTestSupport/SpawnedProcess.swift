import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a child process to completion with `posix_spawn`, its output captured in files.
///
/// Not Foundation's `Process`: on Linux, `Process.run()` lists `/proc/self/fd` with a
/// `dirent` copy that can read past glibc's buffer and crash the whole test run, more
/// likely the more descriptors are open (swift-corelibs-foundation PR #5472; seen here
/// with Swift 6.3.1). Blocking: call it from a thread of its own, not the test pool.
public enum SpawnedProcess {
    /// How a child ended.
    public struct Result: Sendable {
        /// The exit status, or 128 + the signal that ended it.
        public var status: Int32
        public var stdout: String
        public var stderr: String
        /// Whether it was killed for running past its timeout.
        public var timedOut: Bool
    }

    /// ``run(_:_:stdin:environment:timeout:)`` on a thread of its own, for async callers.
    public static func runDetached(_ path: String, _ arguments: [String], stdin: [UInt8]? = nil,
                                   environment: [String: String] = [:], timeout: TimeInterval = 60) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Swift.Result {
                    try run(path, arguments, stdin: stdin, environment: environment, timeout: timeout)
                })
            }
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `path` (a file, or a name looked up in `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: Variables added to (or replacing) this process's environment.
    ///   - timeout: Seconds before the child gets SIGTERM, then SIGKILL a second later.
    ///   - stdin: What the child reads on standard input (nothing by default).
    public static func run(_ path: String, _ arguments: [String], stdin: [UInt8]? = nil,
                           environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> Result {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outPath = folder.appendingPathComponent("out").path, errPath = folder.appendingPathComponent("err").path
        let inPath = folder.appendingPathComponent("in").path
        guard FileManager.default.createFile(atPath: inPath, contents: Data(stdin ?? [])) else {
            throw Failure(description: "cannot create \(inPath)")
        }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }.map { "\($0.key)=\($0.value)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        // posix_spawnp searches PATH for a bare name, as /usr/bin/env would.
        let spawned = posix_spawnp(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else { throw Failure(description: "cannot run \(path): \(String(cString: strerror(spawned)))") }

        var status: Int32 = 0
        var timedOut = false
        let deadline = Date().addingTimeInterval(timeout)
        var killDeadline: Date?
        while true {
            let waited = waitpid(pid, &status, WNOHANG)
            if waited == pid { break }
            if waited == -1, errno != EINTR { throw Failure(description: "waitpid: \(String(cString: strerror(errno)))") }
            if killDeadline == nil, Date() >= deadline {
                timedOut = true
                kill(pid, SIGTERM)
                killDeadline = Date().addingTimeInterval(1)
            } else if let killAt = killDeadline, Date() >= killAt {
                kill(pid, SIGKILL)
            }
            usleep(5_000)
        }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let signal = status & 0x7f
        return Result(status: signal == 0 ? (status >> 8) & 0xff : 128 + signal,
                      stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
                      stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
                      timedOut: timedOut)
    }
}
