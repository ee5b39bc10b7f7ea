import Foundation
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
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
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
        let merged = metadata.merging(extra) { _, new in new }
        let pairs = merged.keys.sorted().map { "\($0)=\(merged[$0] ?? "")" }.joined(separator: " ")
        let stamp = Self.timestamp()
        sink.write("\(stamp) \(level.rawValue) \(label):\(pairs.isEmpty ? "" : " " + pairs) \(message())\n")
    }

    public func trace(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .trace, message(), metadata: metadata) }
    public func debug(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .debug, message(), metadata: metadata) }
    public func info(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .info, message(), metadata: metadata) }
    public func notice(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .notice, message(), metadata: metadata) }
    public func warning(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .warning, message(), metadata: metadata) }
    public func error(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .error, message(), metadata: metadata) }
    public func critical(_ message: @autoclosure () -> String, metadata: [String: String] = [:]) { log(level: .critical, message(), metadata: metadata) }

    private static func timestamp() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 32)
        let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S+0000", &parts)
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Where log lines go.
public final class LogSink: Sendable {
    private enum Target: Sendable { case fileDescriptor(Int32), memory }
    private let target: Target
    private let lines = Mutex<[String]>([])

    private init(_ target: Target) { self.target = target }

    /// Standard error, written with one `write(2)` per line so lines never interleave.
    public static let standardError = LogSink(.fileDescriptor(2))

    /// A sink that keeps lines in memory, for tests.
    public static func memory() -> LogSink { LogSink(.memory) }

    /// What a memory sink has received.
    public var recorded: [String] { lines.withLock { $0 } }

    func write(_ line: String) {
        switch target {
        case let .fileDescriptor(fd):
            var line = line
            line.withUTF8 { _ = Foundation.write(fd, $0.baseAddress, $0.count) }
        case .memory:
            lines.withLock { $0.append(line) }
        }
    }
}

