import Foundation
import SystemSeam

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
        try await onThread { try run(path, arguments, stdin: stdin, environment: environment, timeout: timeout) }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `path` (a file, or a name looked up in `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: Variables added to (or replacing) this process's environment.
    ///   - timeout: Seconds before the child gets SIGTERM, then SIGKILL a second later.
    ///   - stdin: What the child reads on standard input (`/dev/null` when nil).
    public static func run(_ path: String, _ arguments: [String], stdin: [UInt8]? = nil,
                           environment extra: [String: String] = [:], timeout: TimeInterval = 60) throws -> Result {
        let child = try BackgroundProcess(path, arguments, environment: extra, input: stdin)
        var timedOut = false
        var status = child.wait(timeout: timeout)
        if status == nil {
            timedOut = true
            status = child.terminate(timeout: 1)
        }
        return Result(status: status ?? 128 + SIGKILL, stdout: child.standardOutput, stderr: child.standardError, timedOut: timedOut)
    }

    /// A standard stream of a child sent to `/dev/full`, where every write fails (ENOSPC):
    /// what a command does when its output cannot be written.
    public enum FullStream: String, Sendable {
        case output = ">"
        case error = "2>"
    }

    /// ``runDetached(_:_:stdin:environment:timeout:)`` with `stream` on `/dev/full`, the other
    /// one captured as usual. Through `/bin/sh`, which `exec`s the command: a crash still shows
    /// as 128 + its signal.
    public static func runDetached(_ path: String, _ arguments: [String], full stream: FullStream,
                                   environment: [String: String] = [:], timeout: TimeInterval = 60) async throws -> Result {
        var status = stat()
        guard stat("/dev/full", &status) == 0, status.st_mode & S_IFMT == S_IFCHR else {
            throw Failure(description: "/dev/full is not the device that fails every write")
        }
        return try await runDetached("/bin/sh", ["-c", "exec \"$0\" \"$@\" \(stream.rawValue) /dev/full", path] + arguments,
                                     environment: environment, timeout: timeout)
    }
}
