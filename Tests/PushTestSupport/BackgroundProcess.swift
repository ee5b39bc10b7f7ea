import Foundation
import SystemSeam

/// A child process started with `posix_spawn`, its standard output and error going to files
/// that can be read while it runs. For servers under test (`apns-mock`, `push-gateway`) and,
/// through ``SpawnedProcess``, for tools run to completion.
///
/// Not Foundation's `Process`: see ``SpawnedProcess``. Blocking calls (``waitForOutput(containing:timeout:)``,
/// ``terminate(timeout:)``) belong on a thread of their own (`onThread`), not the test pool.
public final class BackgroundProcess: @unchecked Sendable {
    // Unchecked: `pid` and the paths never change; `exitStatus` is guarded by `lock`.
    public let pid: pid_t
    public let stdoutPath: String
    public let stderrPath: String
    private let folder: URL
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Starts `path` (a file, or a name looked up in `PATH`).
    ///
    /// - Parameters:
    ///   - environment: variables added to (or replacing) this process's environment.
    ///   - input: bytes for standard input; `/dev/null` when nil.
    public init(_ path: String, _ arguments: [String], environment extra: [String: String] = [:], input: [UInt8]? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        stdoutPath = folder.appendingPathComponent("out").path
        stderrPath = folder.appendingPathComponent("err").path
        var inputPath = "/dev/null"
        if let input {
            inputPath = folder.appendingPathComponent("in").path
            guard FileManager.default.createFile(atPath: inputPath, contents: Data(input)) else {
                throw SpawnedProcess.Failure(description: "cannot write the standard input of \(path)")
            }
        }

        // An opaque pointer in Darwin's C library, a struct in glibc's.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        let environment = ProcessInfo.processInfo.environment.merging(extra) { _, new in new }.map { "\($0.key)=\($0.value)" }
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        // posix_spawnp searches PATH for a bare name, as /usr/bin/env would.
        let spawned = posix_spawnp(&pid, path, &actions, nil, argv, envp)
        guard spawned == 0 else {
            try? FileManager.default.removeItem(at: folder)
            throw SpawnedProcess.Failure(description: "cannot run \(path): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
    }

    deinit {
        if status() == nil {
            kill(pid, SIGKILL)
            _ = wait(timeout: 5)
        }
        try? FileManager.default.removeItem(at: folder)
    }

    /// What it has written to standard output so far.
    public var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    /// What it has written to standard error so far.
    public var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Whether it is still running.
    public var isRunning: Bool { status() == nil }

    /// Waits until standard output contains `text`; nil if the child exits or `timeout` passes first.
    public func waitForOutput(containing text: String, timeout: TimeInterval = 20) -> String? {
        wait(for: text, in: { standardOutput }, timeout: timeout)
    }

    /// Waits until standard error (a server's log) contains `text`; nil if the child exits or
    /// `timeout` passes first.
    public func waitForError(containing text: String, timeout: TimeInterval = 20) -> String? {
        wait(for: text, in: { standardError }, timeout: timeout)
    }

    private func wait(for text: String, in stream: () -> String, timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let written = stream()
            if written.contains(text) { return written }
            if status() != nil { return stream().contains(text) ? stream() : nil }
            usleep(10_000)
        }
        return nil
    }

    /// The signals its main thread blocks now (`SigBlk` in `/proc/PID/status`), as a mask
    /// with bit `n - 1` for signal `n`; nil once it has exited or where `/proc` is missing.
    public var blockedSignals: UInt64? { signalMask("SigBlk:") }

    /// The signals it has a handler for now (`SigCgt`), as ``blockedSignals`` gives them.
    public var caughtSignals: UInt64? { signalMask("SigCgt:") }

    /// The signals it ignores now (`SigIgn`), as ``blockedSignals`` gives them.
    public var ignoredSignals: UInt64? { signalMask("SigIgn:") }

    private func signalMask(_ field: String) -> UInt64? {
        guard status() == nil, let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        let line = text.split(separator: "\n").first { $0.hasPrefix(field) }
        return line.flatMap { UInt64($0.dropFirst(field.count).trimmingCharacters(in: .whitespaces), radix: 16) }
    }

    /// Waits until it has a handler for every signal in `signals`; false if it exits or
    /// `timeout` passes first. Before that moment a signal may kill it, or be lost.
    public func waitUntilCatching(_ signals: [Int32], timeout: TimeInterval = 20) -> Bool {
        waitForMask(signals, timeout: timeout) { caughtSignals }
    }

    /// Waits until one of its threads sleeps in the kernel function `function` (its
    /// `/proc/PID/task/TID/wchan`, such as `wait_for_partner` for an `open` of a FIFO that
    /// waits for a writer); false if it exits or `timeout` passes first.
    public func waitUntilAThreadSleeps(in function: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline, status() == nil {
            let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            let sleeping = threads.contains {
                (try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/wchan", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) == function
            }
            if sleeping { return true }
            usleep(1_000)
        }
        return false
    }

    /// Waits until its main thread blocks every signal in `signals`; false if it exits or
    /// `timeout` passes first. The moment a server has begun holding its stop signals.
    public func waitUntilBlocking(_ signals: [Int32], timeout: TimeInterval = 20) -> Bool {
        waitForMask(signals, timeout: timeout) { blockedSignals }
    }

    private func waitForMask(_ signals: [Int32], timeout: TimeInterval, _ mask: () -> UInt64?) -> Bool {
        let wanted = signals.reduce(UInt64(0)) { $0 | 1 << UInt64($1 - 1) }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            guard let current = mask() else { return false }
            if current & wanted == wanted { return true }
            usleep(1_000)
        }
        return false
    }

    /// What ``stopWhileStarting(_:_:environment:)`` saw.
    public struct EarlyStop: Sendable {
        /// Whether its main thread held SIGINT and SIGTERM before the SIGTERM was sent.
        public var held: Bool
        /// The exit status; nil if it did not exit within 20 s (it is then killed).
        public var status: Int32?
        public var output: String
        public var log: String
    }

    /// Starts a server and sends it SIGTERM the moment its main thread holds SIGINT and
    /// SIGTERM, which is before it is up: a server must stop cleanly even then.
    public static func stopWhileStarting(_ path: String, _ arguments: [String], environment: [String: String] = [:]) throws -> EarlyStop {
        let process = try BackgroundProcess(path, arguments, environment: environment)
        let held = process.waitUntilBlocking([SIGINT, SIGTERM], timeout: 20)
        process.signal(SIGTERM)
        let status = process.wait(timeout: 20)
        if status == nil { process.signal(SIGKILL) }
        return EarlyStop(held: held, status: status, output: process.standardOutput, log: process.standardError)
    }

    /// Sends `signal` (SIGTERM unless told otherwise).
    public func signal(_ signal: Int32 = SIGTERM) {
        if status() == nil { kill(pid, signal) }
    }

    /// Sends SIGTERM, waits up to `timeout` seconds, then SIGKILL; returns the exit status
    /// (128 + the signal if one ended it).
    @discardableResult
    public func terminate(timeout: TimeInterval = 10) -> Int32 {
        signal(SIGTERM)
        if let status = wait(timeout: timeout) { return status }
        signal(SIGKILL)
        return wait(timeout: 5) ?? 128 + SIGKILL
    }

    /// Waits up to `timeout` seconds for it to exit; its exit status, or nil if it still runs.
    public func wait(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let status = status() { return status }
            if Date() >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// The exit status once reaped; reaps without blocking.
    private func status() -> Int32? {
        lock.lock()
        defer { lock.unlock() }
        if let exitStatus { return exitStatus }
        var raw: Int32 = 0
        let waited = waitpid(pid, &raw, WNOHANG)
        guard waited == pid else { return nil }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import.
        let signal = raw & 0x7f
        exitStatus = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        return exitStatus
    }
}
