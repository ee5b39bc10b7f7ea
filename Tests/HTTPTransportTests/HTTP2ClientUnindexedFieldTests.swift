import Foundation
import PushTestSupport
import Testing
@testable import HTTPTransport

/// `unindexedFieldNames`, seen by an independent HPACK decoder (python `h2`): the named
/// field arrives as a literal never indexed on every request, the others as before.
@Suite struct HTTP2ClientUnindexedFieldTests {
    /// An h2c server that answers 200 to `count` requests on one connection, then prints, per
    /// request, the names of the fields it received as never indexed (RFC 7541 section 6.2.3).
    private static let server = #"""
import json
import h2.config, h2.connection, h2.events
from hpack import NeverIndexedHeaderTuple

count = int(sys.argv[1])
sock = accept_one()
conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=False, header_encoding="utf-8"))
conn.initiate_connection()
sock.sendall(conn.data_to_send())
never_indexed = []
while len(never_indexed) < count:
    data = sock.recv(65536)
    if not data:
        break
    for event in conn.receive_data(data):
        if isinstance(event, h2.events.RequestReceived):
            never_indexed.append(sorted(h[0] for h in event.headers if isinstance(h, NeverIndexedHeaderTuple)))
            conn.send_headers(event.stream_id, [(":status", "200")], end_stream=True)
    sock.sendall(conn.data_to_send())
print(json.dumps(never_indexed), flush=True)
"""#

    @Test func namedFieldIsNeverIndexedOnEveryRequest() async throws {
        let requests = 3
        let (server, port) = try await PythonH2Server.start(Self.server, [String(requests)])
        defer { _ = server.terminate() }

        var configuration = HTTP2ClientConfiguration(host: "127.0.0.1", port: port)
        configuration.unindexedFieldNames = ["x-request-id"]
        let client = try HTTP2Client(configuration: configuration)
        for index in 0..<requests {
            let response = try await client.send(HTTPClientRequest(
                path: "/", headers: ["X-Request-ID": "request-\(index)", "x-constant": "same every time"]))
            #expect(response.status == 200)
        }
        await client.close()

        let exited = await onThread { server.wait(timeout: 20) }
        #expect(exited == 0, "\(server.standardError)")
        let report = try #require(server.standardOutput.split(separator: "\n").last)
        let neverIndexed = try JSONDecoder().decode([[String]].self, from: Data(report.utf8))
        #expect(neverIndexed == Array(repeating: ["x-request-id"], count: requests))
    }
}
