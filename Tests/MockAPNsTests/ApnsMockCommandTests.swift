import Foundation
import Testing

/// The `apns-mock` command on its defaults, driven by independent clients: curl over TLS
/// with the test CA, and h2load with a provider token minted by PyJWT.
@Suite(.timeLimit(.minutes(3)))
struct ApnsMockCommandTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let certs = root.appendingPathComponent("certs").path
    static let device = String(repeating: "ab", count: 32)

    /// The built `apns-mock`, next to the test bundle.
    static var executable: URL {
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("apns-mock")
    }

    /// A running `apns-mock` and the URLs its banner printed.
    final class RunningMock: @unchecked Sendable {
        // Unchecked: written once during start, then only read.
        let process = Process()
        var urls: [String: String] = [:]
        let output = Pipe()

        init(arguments: [String]) throws {
            process.executableURL = ApnsMockCommandTests.executable
            process.arguments = arguments
            process.environment = ["APNS_MOCK_CERTS": ApnsMockCommandTests.certs]
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(20)
            while !text.contains("topics"), Date() < deadline {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            for line in text.split(separator: "\n") {
                let parts = line.split(separator: " ", omittingEmptySubsequences: true)
                if parts.count == 2 { urls[String(parts[0])] = String(parts[1]) }
            }
        }

        func stop() -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func pyjwtToken() throws -> String {
        let script = """
            import jwt, sys, time
            key = open(sys.argv[1]).read()
            print(jwt.encode({"iss": "TEAM000001", "iat": int(time.time())}, key, algorithm="ES256", headers={"kid": "ABC123DEFG"}))
            """
        let result = try run("python3", ["-c", script, "\(certs)/AuthKey_ABC123DEFG.p8"])
        #expect(result.status == 0, "\(result.output)")
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func curlAndH2loadWithAPyJWTTokenAreAnsweredAndEveryPushIsCapturedOnce() throws {
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("capture-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: capture) }
        let mock = try RunningMock(arguments: ["--port", "0", "--sandbox-port", "0", "--control-port", "0", "--capture", capture.path])
        let production = try #require(mock.urls["production"], "banner: \(mock.urls)")
        #expect(mock.urls["CA"] == "\(Self.certs)/ca.pem")
        let token = try Self.pyjwtToken()
        let headers = ["-H", "authorization: bearer \(token)", "-H", "apns-topic: com.example.app", "-H", "apns-push-type: alert"]

        let curl = try Self.run("curl", ["-s", "-i", "--http2", "--cacert", "\(Self.certs)/ca.pem"] + headers
            + ["-d", #"{"aps":{"alert":"hello"}}"#, "\(production.replacingOccurrences(of: "127.0.0.1", with: "localhost"))/3/device/\(Self.device)"])
        #expect(curl.output.hasPrefix("HTTP/2 200"), "\(curl.output)")
        #expect(curl.output.contains("apns-id: "))

        let body = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString).json")
        try Data(#"{"aps":{"alert":{"title":"Build finished","body":"All 42 checks passed"},"badge":1}}"#.utf8).write(to: body)
        defer { try? FileManager.default.removeItem(at: body) }
        let h2load = try Self.run("h2load", ["-n", "100000", "-c", "4", "-m", "100", "-t", "1", "-d", body.path]
            + headers.map { $0 == "-H" ? "-H" : $0 } + ["\(production)/3/device/\(Self.device)"])
        #expect(h2load.output.contains("status codes: 100000 2xx, 0 3xx, 0 4xx, 0 5xx"), "\(h2load.output.suffix(800))")

        #expect(mock.stop() == 0, "SIGTERM shuts down cleanly")
        let lines = try String(contentsOf: capture, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 100_001)
        var ids = Set<Substring>()
        for line in lines {
            guard let start = line.range(of: "\"apnsId\":\"")?.upperBound ?? line.range(of: "\"apns_id\":\"")?.upperBound,
                  let end = line[start...].firstIndex(of: "\"") else { continue }
            ids.insert(line[start..<end])
        }
        #expect(ids.count == 100_001, "each push is captured exactly once, by apns-id")
        #expect(!lines.contains { $0.contains(token.split(separator: ".")[2]) }, "the token's signature is never captured")
    }

    @Test func usageErrorsExitWithTwo() throws {
        let result = try Self.run(Self.executable.path, ["--port", "http"])
        #expect(result.status == 2)
        #expect(result.output.hasPrefix("Error: --port expects an integer from 0 to 65535, got 'http'"))
    }
}
