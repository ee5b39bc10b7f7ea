import Foundation

/// What a finished child process left behind.
public struct ChildResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// A child process failed or could not start; the text has its output.
public struct ChildProcessError: Error, CustomStringConvertible {
    public var description: String

    public init(description: String) {
        self.description = description
    }
}

/// Blocking child processes (openssl, python3, the suite's CLIs); call only through `onThread`.
public enum ChildProcess {
    /// Runs `executable` (a path, or a name looked up on PATH) with `input` on standard input
    /// (none when nil), killing it after `timeout` seconds. Output goes to files, so a chatty
    /// child never blocks on a full pipe.
    public static func run(
        _ executable: String, _ arguments: [String], input: [UInt8]? = nil, environment: [String: String]? = nil,
        timeout: TimeInterval = 60
    ) throws -> ChildResult {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let outURL = directory.appendingPathComponent("out"), errURL = directory.appendingPathComponent("err")
        var inputPath: String?
        if let input {
            let inURL = directory.appendingPathComponent("in")
            _ = FileManager.default.createFile(atPath: inURL.path, contents: Data(input))
            inputPath = inURL.path
        }
        // posix_spawn, not Foundation's Process: see SpawnedProcess.
        let process = try SpawnedProcess([executable] + arguments, environment: environment, inputPath: inputPath,
                                         outputPath: outURL.path, errorPath: errURL.path)
        let deadline = Date().addingTimeInterval(timeout)
        while process.exitCodeIfEnded() == nil, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        process.terminate()
        return ChildResult(
            status: process.wait(),
            stdout: (try? String(contentsOf: outURL, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: errURL, encoding: .utf8)) ?? "")
    }

    /// Runs `run`, throwing with the output when the child fails.
    public static func check(_ executable: String, _ arguments: [String], timeout: TimeInterval = 60) throws -> ChildResult {
        let result = try run(executable, arguments, timeout: timeout)
        guard result.status == 0 else {
            throw ChildProcessError(description: "\(executable) \(arguments.prefix(3)) exited \(result.status):\n\(result.stdout)\n\(result.stderr)")
        }
        return result
    }
}

/// Client certificates made on the fly with the openssl CLI, signed by a test CA.
public enum TestCertificateIssuer {
    /// Issues a client certificate with `subject` and extra extension lines, signed by
    /// `caCertificate`/`caKey`; returns (certificate, key) paths in `directory`. Blocking:
    /// call through `onThread`.
    public static func issue(
        _ name: String, subject: String, extensions: [String], caCertificate: String, caKey: String, in directory: String
    ) throws -> (certificate: String, key: String) {
        let key = "\(directory)/\(name).key", csr = "\(directory)/\(name).csr"
        let certificate = "\(directory)/\(name).pem", ext = "\(directory)/\(name).ext"
        let lines = ["basicConstraints=critical,CA:FALSE", "keyUsage=critical,digitalSignature", "extendedKeyUsage=clientAuth"]
            + extensions
        try (lines.joined(separator: "\n") + "\n").write(toFile: ext, atomically: true, encoding: .utf8)
        _ = try ChildProcess.check("openssl", ["ecparam", "-name", "prime256v1", "-genkey", "-noout", "-out", key])
        _ = try ChildProcess.check("openssl", ["req", "-new", "-key", key, "-subj", subject, "-out", csr])
        _ = try ChildProcess.check("openssl", [
            "x509", "-req", "-in", csr, "-CA", caCertificate, "-CAkey", caKey,
            "-CAcreateserial", "-CAserial", "\(directory)/ca.srl", "-sha256", "-days", "2", "-extfile", ext, "-out", certificate,
        ])
        return (certificate, key)
    }

    /// A fresh temporary directory for issued certificates.
    public static func temporaryDirectory() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("test-certs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }
}
