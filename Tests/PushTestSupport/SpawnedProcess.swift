import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that drive command-line tools.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3.1) crashes now and then: it copies a
/// whole 256-byte `d_name` out of each `/proc/self/fd` entry and can read past the end of
/// glibc's buffer (swift-corelibs-foundation pull request 5472). Test processes hold many
/// descriptors (servers, clients, event loops), which makes that likelier. This type spawns
/// directly, gives the child only descriptors 0-2, and reaps it with `waitpid`.
///
/// `ChildProcess.run` runs to completion on it; use this type directly for a child that
/// must keep running (a server whose banner a test reads from ``standardOutput``).
///
/// ```swift
/// let child = try SpawnedProcess([".build/debug/push-gateway", "--port", "0"], capturesOutput: true)
/// child.terminate()
/// child.wait()
/// ```
public final class SpawnedProcess: @unchecked Sendable {
    // Unchecked: `pid` and the handles are set once in init; `reaped` is guarded by `lock`.
    public struct SpawnError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The child's process id.
    public let pid: pid_t
    /// The read end of the child's standard output, when `capturesOutput` was set.
    public let standardOutput: FileHandle?
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `arguments[0]` (looked up in `PATH`, or a path) with the rest as its arguments.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; nil passes this process's.
    ///   - capturesOutput: standard output goes to ``standardOutput`` (read it, or the child
    ///     may block on a full pipe); otherwise to `outputPath`, or /dev/null.
    ///   - inputPath, outputPath, errorPath: files for standard input, output and error
    ///     (/dev/null when nil).
    public init(_ arguments: [String], environment: [String: String]? = nil, capturesOutput: Bool = false,
                inputPath: String? = nil, outputPath: String? = nil, errorPath: String? = nil) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        if capturesOutput {
            guard pipe(&pipeEnds) == 0 else { throw SpawnError(description: "pipe failed: errno \(errno)") }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, outputPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        // Descriptors other threads opened without O_CLOEXEC (Foundation's pipes) must not leak
        // into the child, or a pipe stays open after its writer ended. Glibc has the call, but
        // its header hides it from Swift.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        let argv = (["env"] + arguments).map { strdup($0) } + [nil]
        let pairs = environment.map { $0.map { "\($0.key)=\($0.value)" } } ?? ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let envp = pairs.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, "/usr/bin/env", &actions, nil, argv, envp)
        if capturesOutput { close(pipeEnds[1]) }
        guard result == 0 else {
            if capturesOutput { close(pipeEnds[0]) }
            throw SpawnError(description: "posix_spawn \(arguments.first ?? "") failed: \(String(cString: strerror(result)))")
        }
        pid = child
        standardOutput = capturesOutput ? FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true) : nil
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private static let addCloseFrom: AddCloseFrom? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np")
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// Sends SIGTERM.
    public func terminate() {
        send(SIGTERM)
    }

    /// Sends `signal` (SIGINT, SIGTERM, …) unless the child has been reaped already.
    public func send(_ signal: Int32) {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus == nil { kill(pid, signal) }
    }

    /// The exit code if the child has ended, without waiting; nil while it runs.
    public func exitCodeIfEnded() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        exitStatus = Self.code(status)
        return exitStatus
    }

    private static func code(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    /// Waits for the child to end; its exit code, or 128 + the signal that ended it.
    @discardableResult
    public func wait() -> Int32 {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let code = Self.code(status)
        exitStatus = code
        return code
    }
}
