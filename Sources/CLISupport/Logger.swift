import Foundation
import StrictJSON
import Synchronization

/// A small logger shaped like swift-log's, for the suite's command-line tools.
///
/// It is a value: copy it and add metadata without touching the original. Lines go to
/// standard error in swift-log's stream layout, so stdout stays clean for data.
///
/// ```swift
/// var logger = Logger(label: "apns-mock")
/// logger[metadataKey: "env"] = "sandbox"
/// logger.info("push accepted", metadata: ["push.topic": "com.example.app"])
/// ```
public struct Logger: Sendable {
    /// Severity, from most to least verbose.
    public enum Level: String, Sendable, Comparable, CaseIterable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            lhs.rank < rhs.rank
        }

        /// The position in `allCases`, without building the array on every comparison.
        private var rank: Int {
            switch self {
            case .trace: 0
            case .debug: 1
            case .info: 2
            case .notice: 3
            case .warning: 4
            case .error: 5
            case .critical: 6
            }
        }
    }

    public let label: String
    /// Messages below this level are dropped without evaluating them.
    public var logLevel: Level = .info
    private var metadata: [String: String] = [:]
    private let sink: LogSink

    /// A logger writing to standard error.
    public init(label: String) {
        self.init(label: label, sink: .standardError)
    }

    /// A logger writing to `sink`; tests pass `.memory` to read what was logged.
    public init(label: String, sink: LogSink) {
        self.label = label
        self.sink = sink
    }

    /// Metadata attached to every line from this logger.
    public subscript(metadataKey key: String) -> String? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(level: Level, _ message: @autoclosure () -> String, metadata extra: [String: String] = [:]) {
        guard level >= logLevel else { return }
        write(level: level, message(), own: metadata.merging(extra) { _, new in new }, fields: [])
    }

    /// Logs with fields in the order given, after the logger's own metadata: the cheap form
    /// for a line per request (no dictionary to build, hash and sort).
    ///
    /// ```swift
    /// logger.log(level: .info, "push accepted", fields: [("push.env", "sandbox"), ("push.status", "200")])
    /// ```
    public func log(level: Level, _ message: @autoclosure () -> String, fields: [(String, String)]) {
        guard level >= logLevel else { return }
        write(level: level, message(), own: metadata, fields: fields)
    }

    private func write(level: Level, _ message: String, own: [String: String], fields: [(String, String)]) {
        var line = LogLine(level: level, label: label, metadata: own)
        for (key, value) in fields { line.field(name: key, value) }
        line.finish(message) { sink.write($0) }
    }

    /// Logs a line whose fields `build` appends straight into it: the cheapest form, for
    /// a line per request where even an array of field strings shows in profiles.
    ///
    /// ```swift
    /// logger.log(level: .info, "push accepted") { line in
    ///     line.field("push.status", 200)
    ///     line.field("push.topic", topic)
    /// }
    /// ```
    public func log(level: Level, _ message: StaticString, build: (inout LogLine) -> Void) {
        guard level >= logLevel else { return }
        var line = LogLine(level: level, label: label, metadata: metadata)
        build(&line)
        line.finish(message) { sink.write($0) }
    }

    public func trace(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .trace, message(), metadata: metadata) }
    public func debug(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .debug, message(), metadata: metadata) }
    public func info(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .info, message(), metadata: metadata) }
    public func notice(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .notice, message(), metadata: metadata) }
    public func warning(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .warning, message(), metadata: metadata) }
    public func error(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .error, message(), metadata: metadata) }
    public func critical(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .critical, message(), metadata: metadata) }

    /// The last second formatted, since a busy server logs many lines per second and
    /// `gmtime_r` takes glibc's time-zone lock on every call.
    private static let lastTimestamp = Mutex<(second: Int, text: [UInt8])>((-1, []))

    /// Appends now in UTC, `2026-03-01T12:34:56+0000`, formatted by hand (no `strftime` buffer).
    static func appendTimestamp(to line: inout TextBuffer) {
        var now = time(nil)
        let copied = lastTimestamp.withLock { last in
            guard last.second == now else { return false }
            line.append(last.text)
            return true
        }
        if copied { return }
        var text: [UInt8] = []
        text.reserveCapacity(24)
        var parts = tm()
        gmtime_r(&now, &parts)
        func put(_ value: Int32, digits: Int) {
            var divisor: Int32 = 1
            for _ in 1..<digits { divisor *= 10 }
            while divisor > 0 {
                text.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / divisor % 10))
                divisor /= 10
            }
        }
        put(parts.tm_year + 1900, digits: 4)
        text.append(UInt8(ascii: "-"))
        put(parts.tm_mon + 1, digits: 2)
        text.append(UInt8(ascii: "-"))
        put(parts.tm_mday, digits: 2)
        text.append(UInt8(ascii: "T"))
        put(parts.tm_hour, digits: 2)
        text.append(UInt8(ascii: ":"))
        put(parts.tm_min, digits: 2)
        text.append(UInt8(ascii: ":"))
        put(parts.tm_sec, digits: 2)
        text.append(contentsOf: "+0000".utf8)
        line.append(text)
        lastTimestamp.withLock { $0 = (now, text) }
    }
}

/// Where log lines go.
public final class LogSink: Sendable {
    private enum Target: Sendable { case fileDescriptor(Int32), memory, buffered(Int32) }
    private let target: Target
    private let lines = Mutex<[String]>([])
    /// Lines of a buffered sink not written yet.
    private let pending = Mutex<[UInt8]>([])
    /// Held while a buffered sink writes, so chunks reach the file in the order they were logged.
    private let writing = Mutex<Void>(())

    private init(_ target: Target) { self.target = target }

    /// Standard error, written with one `write(2)` per line so lines never interleave.
    public static let standardError = LogSink(.fileDescriptor(2))

    /// Standard error, written in batches: at most every ``bufferedFlushInterval`` and
    /// whenever ``bufferedFlushBytes`` are pending, and at exit. For a server that logs a
    /// line per request, where a `write(2)` per line costs more than the rest of the line;
    /// lines still never interleave, but one may appear up to the interval late, and a
    /// crash loses what was pending.
    public static let bufferedStandardError: LogSink = {
        atexit { LogSink.bufferedStandardError.flush() }
        return buffered(fileDescriptor: 2)
    }()

    /// A sink that writes to `fileDescriptor` in batches, like ``bufferedStandardError``
    /// (which also flushes at exit; call ``flush()`` before exiting with this one).
    public static func buffered(fileDescriptor: Int32) -> LogSink {
        let sink = LogSink(.buffered(fileDescriptor))
        weak let weakSink = sink
        let flusher = Thread {
            while let sink = weakSink {
                sink.flush()
                Thread.sleep(forTimeInterval: bufferedFlushInterval)
            }
        }
        flusher.name = "log-flush"
        flusher.start()
        return sink
    }

    /// How long a buffered line may wait, in seconds.
    public static let bufferedFlushInterval = 0.05
    /// Pending bytes that make a buffered sink write at once.
    public static let bufferedFlushBytes = 16 * 1024

    /// A sink that keeps lines in memory, for tests.
    public static func memory() -> LogSink { LogSink(.memory) }

    /// What a memory sink has received.
    public var recorded: [String] { lines.withLock { $0 } }

    /// Writes one complete UTF-8 line.
    func write(_ line: UnsafeBufferPointer<UInt8>) {
        switch target {
        case let .fileDescriptor(fd):
            _ = Foundation.write(fd, line.baseAddress, line.count)
        case .memory:
            let text = String(decoding: line, as: UTF8.self)
            lines.withLock { $0.append(text) }
        case .buffered:
            let full = pending.withLock { pending in
                pending.append(contentsOf: line)
                return pending.count >= Self.bufferedFlushBytes
            }
            // Never wait for the flusher here: this is a server's request path.
            if full { flush(waiting: false) }
        }
    }

    /// Writes what a buffered sink holds now; other sinks write at once and need no flush.
    public func flush() { flush(waiting: true) }

    private func flush(waiting: Bool) {
        guard case let .buffered(fd) = target else { return }
        if waiting {
            writing.withLock { _ in writePending(to: fd) }
        } else {
            // The flusher is writing: it takes these bytes on its next round.
            _ = writing.withLockIfAvailable { _ in writePending(to: fd) }
        }
    }

    /// Call with `writing` held.
    private func writePending(to fd: Int32) {
        // Swapped out, not copied: loggers' lock is held for a pointer swap only, which
        // makes a flusher preempted while holding it (a stalled request) unlikely.
        var taken: [UInt8] = []
        taken.reserveCapacity(Self.bufferedFlushBytes)
        pending.withLock { swap(&$0, &taken) }
        // A log that cannot be written has nowhere to be reported: the lines are dropped.
        StandardStreams.write(taken, to: fd)
    }
}
