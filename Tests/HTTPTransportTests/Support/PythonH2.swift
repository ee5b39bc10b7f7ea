import Foundation
import PushTestSupport

/// Runs python3 scripts that talk HTTP/2 with the `h2` package, an implementation independent of ours.
///
/// Each script gets `prelude` first, reads its arguments from `sys.argv[1:]` and prints one JSON
/// object as its last line, which `run` decodes.
enum PythonH2 {
    /// Helpers shared by every script: connecting (h2c or TLS, with or without ALPN) and a
    /// `Client` that records every h2 event with its arrival time.
    static let prelude = #"""
import json, socket, ssl, sys, time
import h2.config, h2.connection, h2.events, h2.exceptions

def connect(port, host="127.0.0.1", tls=False, cafile=None, alpn=None, server_name="localhost"):
    sock = socket.create_connection((host, port), timeout=5)
    selected = None
    if tls:
        ctx = ssl.create_default_context(cafile=cafile)
        if alpn is not None:
            ctx.set_alpn_protocols(alpn)
        sock = ctx.wrap_socket(sock, server_hostname=server_name)
        selected = sock.selected_alpn_protocol()
    return Client(sock, selected)

"""# + "\n" + PythonH2Client.clientClass + "\n" + #"""
"""#

    typealias Report = PythonH2Report

    /// Runs `prelude + script` with `arguments` and decodes its last output line.
    static func run<Output: Decodable>(_ script: String, _ arguments: [String], as type: Output.Type = Report.self,
                                       timeout: Duration = .seconds(20)) async throws -> Output {
        let result = try await ProcessRunner.run("python3", ["-c", prelude + "\n" + script] + arguments, timeout: timeout)
        guard result.succeeded, let line = result.stdout.split(separator: "\n").last else {
            throw ProcessRunnerError(description: "python failed (status \(result.status), timed out: \(result.timedOut)):\n\(result.stdout)\n\(result.stderr)")
        }
        do {
            return try JSONDecoder().decode(Output.self, from: Data(line.utf8))
        } catch {
            throw ProcessRunnerError(description: "cannot decode python output \(line): \(error)\n\(result.stderr)")
        }
    }
}
