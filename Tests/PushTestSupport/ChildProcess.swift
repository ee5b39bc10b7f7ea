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
    /// (none when nil) and `environment` added to this process's, killing it after `timeout` seconds. Output goes to files, so a chatty
    /// child never blocks on a full pipe.
    public static func run(
        _ executable: String, _ arguments: [String], input: [UInt8]? = nil, environment: [String: String] = [:],
        timeout: TimeInterval = 60
    ) throws -> ChildResult {
        // posix_spawn, not Process: see SpawnedProcess for the Foundation crash it avoids.
        let result = try SpawnedProcess.run(executable, arguments, stdin: input, environment: environment, timeout: timeout)
        return ChildResult(status: result.status, stdout: result.stdout, stderr: result.stderr)
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
