import Foundation
import HermesContract
import PushTestSupport
import StrictJSON

/// Runs the built `push-inspect` and writes the capture files it reads.
enum PushInspectProcess {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let certs = root.appendingPathComponent("certs").path

    /// The built `push-inspect`, in the build folder that holds the test bundle.
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent(), Bundle.main.bundleURL]
            .map { $0.appendingPathComponent("push-inspect") }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `push-inspect arguments…`, feeding `input` on standard input, on a thread of its own.
    static func run(_ arguments: [String], input: String? = nil) async throws -> Result {
        // posix_spawn, not Process: see SpawnedProcess for the Foundation crash it avoids.
        let result = try await SpawnedProcess.runDetached(executable.path, arguments, stdin: input.map { Array($0.utf8) })
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }

    /// A temporary file holding `text`.
    static func file(_ text: String, suffix: String = ".jsonl") throws -> String {
        let path = NSTemporaryDirectory() + "push-inspect-\(UUID().uuidString)\(suffix)"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// One capture line (docs/capture-format.md) for a push of `payload` with `headers`;
    /// `settled` adds fields the mock settles on, such as `push_type`.
    static func captureLine(seq: Int, headers: [(String, String)], payload: String, status: Int = 200,
                            reason: String? = nil, time: String = "2026-11-30T10:00:00.000000Z",
                            settled: [(key: String, value: JSONValue)] = []) -> String {
        var members: [(key: String, value: JSONValue)] = [
            ("v", 1), ("seq", .integer(Int64(seq))), ("time", .string(time)), ("env", "sandbox"), ("conn", 1), ("method", "POST"),
            ("path", .string("/3/device/" + String(repeating: "ab", count: 32))),
            ("headers", .array(headers.map { .array([.string($0.0), .string($0.1)]) })),
            ("device_token", .string(String(repeating: "ab", count: 32))),
        ] + settled
        var payloadMembers: [(key: String, value: JSONValue)] = [
            ("size", .integer(Int64(payload.utf8.count))), ("base64", false), ("raw", .string(payload)),
        ]
        if let parsed = try? JSONParser.parse(Array(payload.utf8)) { payloadMembers.append(("parsed", parsed)) }
        var payloadBytes: [UInt8] = []
        JSONWriter.writeObject(payloadMembers, into: &payloadBytes)
        members.append(("status", .integer(Int64(status))))
        if let reason { members.append(("reason", .string(reason))) }
        members += [("apns_id", "8a2f1e3c-0000-4000-8000-00000000abcd"), ("conn_action", "none")]
        var line: [UInt8] = []
        JSONWriter.writeObject(members, into: &line)
        // Splice the payload object in before the status (the writer takes values, not raw text).
        line.removeLast()
        line.append(contentsOf: #","payload":"#.utf8)
        line.append(contentsOf: payloadBytes)
        line.append(UInt8(ascii: "}"))
        return String(decoding: line, as: UTF8.self)
    }

    /// A capture line for a Hermes push of `type`, headers as the contract fixes them.
    /// `omitting` leaves a header out, as a sender that never sent it; `settled` as in ``captureLine``.
    static func hermesLine(seq: Int, type: HermesPushType, session: String = "sess-\(1)", sentAt: Int64 = 1_796_032_800,
                           omitting omitted: String? = nil, settled: [(key: String, value: JSONValue)] = [],
                           editPayload: (String) -> String = { $0 }) -> String {
        let notification = HermesNotification(type: type, sessionID: session)
        let headers: [(String, String)] = [
            ("apns-topic", "com.example.app"), ("apns-push-type", "alert"), ("apns-priority", "10"),
            ("apns-expiration", String(notification.expiration(sentAt: sentAt))), ("apns-collapse-id", notification.collapseID),
            ("apns-id", "8a2f1e3c-0000-4000-8000-\(String(repeating: "0", count: 11))\(seq % 10)"),
        ]
        return captureLine(seq: seq, headers: headers.filter { $0.0 != omitted },
                           payload: editPayload(String(decoding: notification.payload(), as: UTF8.self)),
                           time: "2026-11-30T10:00:00.000000Z", settled: settled)
    }
}
