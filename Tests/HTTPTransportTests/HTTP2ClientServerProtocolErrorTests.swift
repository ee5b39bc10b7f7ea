import Foundation
import PushTestSupport
import Testing
@testable import HTTPTransport

/// A server that breaks HTTP/2 makes the client's nghttp2 end the session with a GOAWAY of
/// its own; the requests then fail with what went wrong, not as a connection that merely
/// closed (which says nothing of the cause, and that the request may have been processed).
@Suite struct HTTP2ClientServerProtocolErrorTests {
    /// An h2c server (python `h2` for the handshake) that, once a request arrives, sends DATA
    /// on stream 2: a stream the server never opened (RFC 9113 section 5.1, a connection error
    /// of type PROTOCOL_ERROR). It keeps the connection open and reports what the client sent.
    private static let server = #"""
import struct

sock = accept_one()
serve_until_request(sock)
sock.sendall(struct.pack(">I", 2)[1:] + bytes([0, 1]) + struct.pack(">I", 2) + b"hi")
try:
    while sock.recv(65536):
        pass
except OSError:
    pass
print("closed", flush=True)
"""#

    @Test func dataOnAStreamTheServerNeverOpenedFailsTheRequestAsAProtocolError() async throws {
        let (server, port) = try await PythonH2Server.start(Self.server)
        defer { _ = server.terminate() }
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: port))
        let result = await outcome(of: client, HTTPClientRequest(path: "/answer"))
        guard case let .failure(.protocolError(message)) = result else {
            Issue.record("expected a protocol error, got \(result)")
            await client.close()
            return
        }
        #expect(message.contains("GOAWAY PROTOCOL_ERROR"), "\(message)")
        #expect(await onThread { server.waitForOutput(containing: "closed") } != nil, "the client left the connection open")
        await client.close()
    }
}
