import Foundation
import PushTestSupport
import Testing
@testable import HTTPTransport

/// A server whose answer carries a header field the client's HPACK decoder cannot take
/// (nghttp2 refuses any string over 64 KiB), or a dynamic table larger than the client
/// allowed. The request fails with an error that says so; an oversized value costs only its
/// own request, as it does on the server side (OversizedValueFilter), while a table change
/// the client never allowed is the connection error RFC 7541 section 4.2 makes it.
@Suite(.timeLimit(.minutes(2)))
struct HTTP2ClientOversizedHeaderTests {
    /// An h2 server (python `h2`, cleartext) that reads two requests, `/big` and `/small`,
    /// and answers them in that order as `argv[1]` says:
    /// - `value`: `/big` with a 70,000-byte `x-big` value (raw, not Huffman: `|` codes longer),
    ///   in one HEADERS frame of the client's 16 KiB maximum and CONTINUATION frames;
    /// - `table`: `/big` with a header block that starts by raising the dynamic table to 1 MiB.
    /// `/small` gets 200 `ok` either way. The server prints `done` when the client has closed.
    private static let server = #"""
import struct
import h2.config, h2.connection, h2.events, hpack

sock = accept_one()
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
streams = {}
while len(streams) < 2:
    data = sock.recv(65536)
    if not data:
        sys.exit("the client closed first")
    for event in conn.receive_data(data):
        if isinstance(event, h2.events.RequestReceived):
            streams[dict(event.headers)[b":path"]] = event.stream_id
    sock.sendall(conn.data_to_send())

big, small = streams[b"/big"], streams[b"/small"]
if sys.argv[1] == "value":
    conn.send_headers(big, [(":status", "200"), ("x-big", "|" * 70000)], end_stream=True)
else:
    # A dynamic table size update (RFC 7541 section 6.3) to 1 MiB, then :status 200 (index 8).
    def integer(value, prefix_bits, first):
        limit = (1 << prefix_bits) - 1
        if value < limit:
            return bytes([first | value])
        out, value = [first | limit], value - limit
        while value >= 128:
            out.append(value % 128 + 128)
            value //= 128
        return bytes(out + [value])
    block = integer(1 << 20, 5, 0x20) + bytes([0x88])
    sock.sendall(struct.pack(">I", len(block))[1:] + bytes([0x1, 0x5]) + struct.pack(">I", big) + block)
conn.send_headers(small, [(":status", "200")])
conn.send_data(small, b"ok", end_stream=True)
sock.sendall(conn.data_to_send())
while True:
    try:
        data = sock.recv(65536)
    except (ConnectionResetError, TimeoutError):
        break
    if not data:
        break
    try:
        conn.receive_data(data)
    except Exception:
        pass
print("done", flush=True)
"""#

    /// Sends `/big` and `/small` on one connection and returns both outcomes.
    private static func exchange(_ mode: String) async throws
        -> (big: Result<HTTPClientResponse, HTTPClientError>, small: Result<HTTPClientResponse, HTTPClientError>, server: BackgroundProcess) {
        let (server, port) = try await PythonH2Server.start(Self.server, [mode])
        var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: port, tls: nil)
        configuration.requestTimeout = .seconds(60)
        let client = try HTTP2Client(configuration: configuration)
        try await client.connect()
        async let big = outcome(of: client, HTTPClientRequest(path: "/big"))
        async let small = outcome(of: client, HTTPClientRequest(path: "/small"))
        let results = await (big, small)
        await client.close()
        return (results.0, results.1, server)
    }

    @Test func anOversizedValueFailsItsRequestAloneWithATypedError() async throws {
        let (big, small, server) = try await Self.exchange("value")
        defer { _ = server.terminate() }
        guard case let .failure(error) = big, case .responseHeaderTooLarge = error else {
            Issue.record("expected responseHeaderTooLarge, got \(String(reflecting: big)); server: \(server.standardError)")
            return
        }
        #expect(error.description.contains("64 KiB"), "\(error)")
        #expect(!error.isRetryable)
        guard case let .success(response) = small else {
            Issue.record("the other stream failed too: \(String(reflecting: small)); server: \(server.standardError)")
            return
        }
        #expect(response.status == 200 && response.body == Array("ok".utf8))
    }

    @Test func aTableLargerThanAllowedIsACompressionErrorThatSaysSo() async throws {
        let (big, small, server) = try await Self.exchange("table")
        defer { _ = server.terminate() }
        for result in [big, small] {
            guard case let .failure(.protocolError(message)) = result else {
                Issue.record("expected a protocol error, got \(String(reflecting: result)); server: \(server.standardError)")
                continue
            }
            #expect(message.contains("COMPRESSION_ERROR"), "\(message)")
        }
    }
}
