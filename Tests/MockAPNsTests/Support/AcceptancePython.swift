import Foundation
import PushTestSupport

/// python3 scripts that talk HTTP/2 to the mock with the `h2` and `hyperframe` packages, an
/// implementation independent of ours. Trimmed from HTTPTransportTests' `PythonH2`.
///
/// Each script gets `prelude` first, reads its arguments from `sys.argv[1:]` and prints one JSON
/// object as its last line, which `run` decodes.
enum AcceptancePython {
    /// Helpers shared by every script: connecting (h2c, or TLS with an optional client
    /// certificate), APNs push headers, and a `Client` that records every h2 event with its time.
    static let prelude = #"""
import json, socket, ssl, sys, time
import h2.config, h2.connection, h2.events, h2.exceptions

def push_headers(device, token=None, topic="com.example.app", authority="127.0.0.1", scheme="http"):
    headers = [(":method", "POST"), (":scheme", scheme), (":path", "/3/device/" + device), (":authority", authority),
               ("apns-topic", topic), ("apns-push-type", "alert")]
    if token:
        headers.append(("authorization", "bearer " + token))
    return headers

PAYLOAD = b'{"aps":{"alert":"hi"}}'

def connect(port, host="127.0.0.1", tls=False, cafile=None, alpn=("h2",), server_name="localhost", cert=None, key=None):
    sock = socket.create_connection((host, port), timeout=5)
    selected = None
    if tls:
        ctx = ssl.create_default_context(cafile=cafile)
        if cert is not None:
            ctx.load_cert_chain(cert, key)
        if alpn is not None:
            ctx.set_alpn_protocols(list(alpn))
        sock = ctx.wrap_socket(sock, server_hostname=server_name)
        selected = sock.selected_alpn_protocol()
    return Client(sock, selected)

"""# + "\n" + PythonH2Client.clientClass + "\n" + #"""
"""#

    typealias Report = PythonH2Report

    /// Runs `prelude + script` with `arguments` on a thread of its own and decodes its last output line.
    static func run<Output: Decodable & Sendable>(
        _ script: String, _ arguments: [String], as type: Output.Type = Report.self, timeout: TimeInterval = 60
    ) async throws -> Output {
        let result = try await onThread { try ChildProcess.run("python3", ["-c", prelude + "\n" + script] + arguments, timeout: timeout) }
        guard result.status == 0, let line = result.stdout.split(separator: "\n").last else {
            throw ChildProcessError(description: "python failed (status \(result.status)):\n\(result.stdout)\n\(result.stderr)")
        }
        do {
            return try JSONDecoder().decode(Output.self, from: Data(line.utf8))
        } catch {
            throw ChildProcessError(description: "cannot decode python output \(line): \(error)\n\(result.stderr)")
        }
    }
}
