import Foundation
import PushTestSupport
import Testing

/// Paths, processes and byte helpers shared by the JWTVerify tests.
enum TestSupport {
    /// The package root, found from this file's location.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // JWTVerifyTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static let certificates = packageRoot.appendingPathComponent("certs")

    static func certificate(_ name: String) -> String {
        certificates.appendingPathComponent(name).path
    }

    /// `WYCHEPROOF_DIR`, or `../shared/vectors/wycheproof` beside the package.
    static var wycheproofDirectory: URL {
        if let configured = ProcessInfo.processInfo.environment["WYCHEPROOF_DIR"], !configured.isEmpty {
            return URL(fileURLWithPath: configured)
        }
        return packageRoot.appendingPathComponent("../shared/vectors/wycheproof").standardizedFileURL
    }

    /// Loads a Wycheproof file, failing (never skipping) when it is missing.
    static func wycheproofFile(_ name: String) throws -> Data {
        let url = wycheproofDirectory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else {
            Issue.record("Wycheproof vectors not found at \(url.path); set WYCHEPROOF_DIR")
            throw MissingVectors(path: url.path)
        }
        return try Data(contentsOf: url)
    }

    struct MissingVectors: Error { let path: String }

    struct ProcessResult {
        let status: Int32
        let output: String
        let error: String
    }

    /// Runs a program found on PATH and captures its output.
    @discardableResult
    static func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> ProcessResult {
        // posix_spawn (PushTestSupport), not Foundation's Process: see SpawnedProcess.
        let result = try ChildProcess.run(program, arguments, input: input.map { Array($0.utf8) } ?? [])
        return ProcessResult(status: result.status, output: result.stdout, error: result.stderr)
    }

    /// A fresh temporary directory.
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("jwtverify-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs `openssl` with arguments and returns stdout, recording failures.
    static func openssl(_ arguments: [String]) throws -> String {
        let result = try run("openssl", arguments)
        guard result.status == 0 else {
            Issue.record("openssl \(arguments.joined(separator: " ")) failed: \(result.error)")
            throw ToolFailed(tool: "openssl", message: result.error)
        }
        return result.output
    }

    struct ToolFailed: Error { let tool: String; let message: String }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var iterator = hex.utf8.makeIterator()
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c - UInt8(ascii: "A") + 10
            }
        }
        while let high = iterator.next(), let low = iterator.next() {
            bytes.append(nibble(high) << 4 | nibble(low))
        }
        self = bytes
    }

    var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
