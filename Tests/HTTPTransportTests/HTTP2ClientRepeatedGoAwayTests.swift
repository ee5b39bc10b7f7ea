import Foundation
import PushTestSupport
import Testing
@testable import HTTPTransport

/// APNs follows a fatal GOAWAY that carries `{"reason":…}` with a second GOAWAY without debug
/// data: the reason must survive it, since clients decide from it whether to resend.
@Suite struct HTTP2ClientRepeatedGoAwayTests {
    /// An h2c server (python `h2` for the handshake, raw frames for the GOAWAYs) that waits for
    /// one request, sends GOAWAY(NO_ERROR, last stream 0, the reason), then GOAWAY(NO_ERROR,
    /// last stream 0, no debug data), and closes.
    private static let server = #"""
import struct

def goaway(debug):
    payload = struct.pack(">II", 0, 0) + debug
    return struct.pack(">I", len(payload))[1:] + bytes([7, 0]) + struct.pack(">I", 0) + payload

sock = accept_one()
serve_until_request(sock)
sock.sendall(goaway(b'{"reason":"BadCertificateEnvironment"}'))
sock.sendall(goaway(b''))
sock.shutdown(socket.SHUT_WR)
print("sent", flush=True)
try:
    while sock.recv(65536):
        pass
except OSError:
    pass
"""#

    @Test func theReasonOfTheFirstGoAwayOutlivesASecondWithoutDebugData() async throws {
        let (server, port) = try await PythonH2Server.start(Self.server)
        defer { _ = server.terminate() }
        let client = try HTTP2Client(configuration: HTTP2ClientConfiguration(host: "127.0.0.1", port: port))
        let reason = Array(#"{"reason":"BadCertificateEnvironment"}"#.utf8)
        let first = await outcome(of: client, HTTPClientRequest(path: "/3/device/abc"))
        #expect(failure(of: first) == .goAway(errorCode: .noError, debugData: reason, lastStreamID: 0), "\(first)")
        let sent = await onThread { server.waitForOutput(containing: "sent") }
        #expect(sent != nil, "\(server.standardError)")
        // Until both frames and the close are read; a hang guard, not a timing assertion.
        for _ in 0..<600 where client.state != .closed { try await Task.sleep(for: .milliseconds(50)) }
        #expect(client.state == .closed)
        #expect(client.lastGoAway == HTTP2GoAway(errorCode: .noError, lastStreamID: 0, debugData: reason))
        // A push handed to the connection now fails with the reason, not a bare GOAWAY.
        let later = await outcome(of: client, HTTPClientRequest(path: "/3/device/abc"))
        #expect(failure(of: later) == .goAway(errorCode: .noError, debugData: reason, lastStreamID: 0), "\(later)")
        await client.close()
    }

    @Test func aLaterGoAwayKeepsTheLowerLastStreamAndAnyErrorCode() {
        let graceful = HTTP2GoAway(errorCode: .noError, lastStreamID: Int32.max, debugData: Array("draining".utf8))
        let final = graceful.followed(by: HTTP2GoAway(errorCode: .noError, lastStreamID: 7, debugData: []))
        #expect(final == HTTP2GoAway(errorCode: .noError, lastStreamID: 7, debugData: Array("draining".utf8)))
        let failed = final.followed(by: HTTP2GoAway(errorCode: .protocolError, lastStreamID: 9, debugData: Array("bad".utf8)))
        #expect(failed == HTTP2GoAway(errorCode: .protocolError, lastStreamID: 7, debugData: Array("bad".utf8)))
        #expect(failed.followed(by: HTTP2GoAway(errorCode: .noError, lastStreamID: 7, debugData: [])) == failed)
    }

    private func failure(of result: Result<HTTPClientResponse, HTTPClientError>) -> HTTPClientError? {
        if case let .failure(error) = result { error } else { nil }
    }
}
