import Foundation
import Testing
@testable import HTTPTransport

/// Requests that arrive in the same read as a close or a GOAWAY, after it, are never handed
/// to the handler: the client sees them unanswered (or refused), and a handler that had
/// acted on them would make the client's retry a duplicate.
@Suite(.timeLimit(.minutes(1)))
struct ServerStopsDispatchingTests {
    /// Sends four requests in one write; the second one triggers `action`. Returns what the client saw.
    static let script = #"""
client = connect(int(sys.argv[1]))
client.pump(lambda c: len(c.settings()) >= 1)
headers = lambda path: [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
for stream, path in [(1, "/ok"), (3, "/act"), (5, "/ok"), (7, "/ok")]:
    client.conn.send_headers(stream, headers(path), end_stream=True)
client.sock.sendall(client.conn.data_to_send())
answered, resets, goaways = [], {}, []
for at, frame in client.read_frames(timeout=5.0):
    if frame.type == 0x1 and "END_STREAM" in frame.flags or frame.type == 0x0 and "END_STREAM" in frame.flags:
        answered.append(frame.stream_id)
    elif frame.type == 0x3:
        resets[str(frame.stream_id)] = frame.error_code
    elif frame.type == 0x7:
        goaways.append(frame.last_stream_id)
print(json.dumps({"answered": sorted(set(answered)), "resets": resets, "goaways": goaways,
                  "closed": client.closed_at is not None}))
"""#

    struct Output: Decodable {
        var answered: [Int]
        var resets: [String: Int]
        var goaways: [Int]
        var closed: Bool
    }

    @Test func afterCloseConnectionLaterRequestsInTheSameReadAreNotHandled() async throws {
        let handler = RecordingHandler { request, responder in
            if request.path == "/act" {
                request.connection.close()
            } else {
                responder.respond(RecordingHandler.defaultResponse(request))
            }
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let output = try await PythonH2.run(Self.script, [String(server.port)], as: Output.self)
        #expect(handler.requests.map(\.path) == ["/ok", "/act"], "the requests after the close were handled")
        #expect(output.answered == [1], "the answer given before the close still arrives: \(output)")
        #expect(output.closed)
    }

    @Test func afterGoAwayLaterRequestsInTheSameReadAreRefused() async throws {
        let handler = RecordingHandler { request, responder in
            if request.path == "/act" { request.connection.sendGoAway() }
            responder.respond(RecordingHandler.defaultResponse(request))
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let output = try await PythonH2.run(Self.script, [String(server.port)], as: Output.self)
        #expect(handler.requests.map(\.path) == ["/ok", "/act"])
        #expect(output.goaways.first == 3, "\(output)")
        #expect(output.answered == [1, 3], "\(output)")
        // Streams 5 and 7 were not processed: refused (REFUSED_STREAM) or simply never answered.
        #expect(output.resets.values.allSatisfy { $0 == 0x7 }, "\(output)")
    }
}
