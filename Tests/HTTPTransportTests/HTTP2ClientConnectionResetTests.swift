import Foundation
import PushTestSupport
import SystemSeam
import Testing
@testable import HTTPTransport

/// A server that resets the connection under a pending request: over TLS as over cleartext,
/// the request fails with the reset, not as if the server had closed cleanly.
@Suite struct HTTP2ClientConnectionResetTests {
    /// An h2 server (python `h2`, TLS with ALPN when given a certificate) that takes one
    /// request, never answers it, and once the client is only waiting, resets the
    /// connection (SO_LINGER 0).
    private static let server = #"""
import ssl, struct
import h2.config, h2.connection, h2.events

sock = accept_one()
if len(sys.argv) > 2:
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(sys.argv[1], sys.argv[2])
    ctx.set_alpn_protocols(["h2"])
    sock = ctx.wrap_socket(sock, server_side=True)
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
# Wait for the request and for the client's acknowledgement of our SETTINGS: after both, the
# client has nothing left to write and is only waiting to read when the reset arrives.
received = acknowledged = False
while not (received and acknowledged):
    data = sock.recv(65536)
    if not data:
        sys.exit("the client closed first")
    for event in conn.receive_data(data):
        received = received or isinstance(event, h2.events.RequestReceived)
        acknowledged = acknowledged or isinstance(event, h2.events.SettingsAcknowledged)
    sock.sendall(conn.data_to_send())
# No close_notify: the TLS socket closes its descriptor, and the kernel sends RST.
sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
sock.close()
print("reset", flush=True)
"""#

    @Test(arguments: [false, true])
    func aResetFailsThePendingRequestWithTheReset(tls: Bool) async throws {
        let arguments = tls ? [TestCertificates.serverCertificate, TestCertificates.serverKey] : []
        let (server, port) = try await PythonH2Server.start(Self.server, arguments)
        defer { _ = server.terminate() }

        var configuration = HTTP2ClientConfiguration(
            host: "127.0.0.1", port: port,
            tls: tls ? .makeClientConfiguration(trustRootsPath: TestCertificates.ca) : nil)
        configuration.serverName = "localhost"
        let client = try HTTP2Client(configuration: configuration)
        let result = await outcome(of: client, HTTPClientRequest(path: "/never-answered"))
        let reset = await onThread { server.waitForOutput(containing: "reset") }
        #expect(reset != nil, "\(server.standardError)")
        guard case .failure(.connectionClosed(.system(call: "read", errno: ECONNRESET)?)) = result else {
            Issue.record("expected the reset (read: ECONNRESET), got \(String(reflecting: result))")
            await client.close()
            return
        }
        await client.close()
    }
}
