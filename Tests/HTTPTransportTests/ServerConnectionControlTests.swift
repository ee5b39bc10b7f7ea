import Foundation
import Testing
@testable import HTTPTransport

/// Per-connection controls, observed at the HTTP/2 frame level by the python `h2` client.
@Suite(.timeLimit(.minutes(1)))
struct ServerConnectionControlTests {
    static let settingsMaxConcurrentStreams = "3"

    @Test func setMaxConcurrentStreamsSendsSettings() async throws {
        let handler = RecordingHandler { request, responder in
            if request.path == "/limit" { request.connection.setMaxConcurrentStreams(1) }
            responder.respond(RecordingHandler.defaultResponse(request))
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]))
client.send(1, [(":method", "GET"), (":scheme", "http"), (":path", "/limit"), (":authority", "127.0.0.1")])
client.pump(lambda c: c.ended(1) and len(c.settings()) >= 2)
client.report(remote_max=client.conn.remote_settings.max_concurrent_streams)
"""#
        struct Output: Decodable { var settings: [PythonH2.Report.Settings]; var remote_max: Int }

        let output = try await PythonH2.run(script, [String(server.port)], as: Output.self)

        let values = output.settings.compactMap { $0.values[Self.settingsMaxConcurrentStreams] }
        #expect(values == [HTTPServerConfiguration.defaultMaxConcurrentStreams, 1])
        #expect(output.remote_max == 1)
    }

    @Test func goAwayCarriesDebugDataAndClosesAfterStreamsInFlight() async throws {
        let debug = #"{"reason":"Shutdown"}"#
        let handler = RecordingHandler { request, responder in
            switch request.path {
            case "/slow":
                responder.respond(HTTPResponse(status: 200, text: "slow done"), after: .milliseconds(400))
            default:
                request.connection.sendGoAway(debugData: Array(debug.utf8))
                responder.respond(HTTPResponse(status: 200, text: "goaway sent"))
            }
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]))
headers = lambda path: [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
client.conn.send_headers(1, headers("/slow"), end_stream=True)
client.conn.send_headers(3, headers("/goaway"), end_stream=True)
client.sock.sendall(client.conn.data_to_send())
goaways, bodies, ended = [], {1: "", 3: ""}, {}
for at, frame in client.read_frames():
    if frame.type == 0x7:
        goaways.append({"at": at, "error": frame.error_code, "last_stream": frame.last_stream_id,
                        "debug": frame.additional_data.decode()})
    elif frame.type == 0x0 and frame.stream_id in bodies:
        bodies[frame.stream_id] += frame.data.decode()
    if frame.stream_id in bodies and "END_STREAM" in frame.flags:
        ended[frame.stream_id] = at
print(json.dumps({"goaways": goaways, "bodies": [bodies[1], bodies[3]], "ended": [ended.get(1), ended.get(3)],
                  "closed_at": client.closed_at, "timed_out": client.timed_out}))
"""#
        struct Output: Decodable {
            var goaways: [PythonH2.Report.GoAway]
            var bodies: [String]
            var ended: [Double?]
            var closed_at: Double?
            var timed_out: Bool
        }

        let report = try await PythonH2.run(script, [String(server.port)], as: Output.self)

        let goAway = try #require(report.goaways.first, "\(report)")
        #expect(report.goaways.count == 1)
        #expect(goAway.debug == debug)
        #expect(goAway.error == 0)
        #expect(goAway.last_stream == 3)
        #expect(report.bodies == ["slow done", "goaway sent"])
        // The in-flight stream finished after the GOAWAY, and only then did the server close.
        let closedAt = try #require(report.closed_at, "connection not closed: \(report)")
        let slowEnded = try #require(report.ended[0])
        #expect(goAway.at < slowEnded)
        #expect(slowEnded <= closedAt)
        #expect(!report.timed_out)
    }

    @Test func delayedResponseDoesNotHoldUpOtherStreams() async throws {
        let handler = RecordingHandler { request, responder in
            if request.path == "/delayed" {
                responder.respond(HTTPResponse(status: 200, text: "late"), after: .milliseconds(500))
            } else {
                responder.respond(HTTPResponse(status: 200, text: "now"))
            }
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let script = #"""
client = connect(int(sys.argv[1]))
client.pump(lambda c: len(c.settings()) >= 1)
headers = lambda path: [(":method", "GET"), (":scheme", "http"), (":path", path), (":authority", "127.0.0.1")]
client.conn.send_headers(1, headers("/delayed"), end_stream=True)
client.conn.send_headers(3, headers("/immediate"), end_stream=True)
sent = client.now()
client.sock.sendall(client.conn.data_to_send())
client.pump(lambda c: c.ended(1, 3))
client.report(sent=sent)
"""#
        struct Output: Decodable { var responses: [PythonH2.Report.Response]; var sent: Double }

        let output = try await PythonH2.run(script, [String(server.port)], as: Output.self)

        let delayed = try #require(output.responses.first { $0.stream == 1 })
        let immediate = try #require(output.responses.first { $0.stream == 3 })
        #expect(delayed.body == "late")
        #expect(immediate.body == "now")
        let delayedAfter = try #require(delayed.ended) - output.sent
        let immediateAfter = try #require(immediate.ended) - output.sent
        #expect(delayedAfter >= 0.49)
        // The order is what the server guarantees; how soon python reads the immediate answer is
        // up to the machine's load. A loop blocked by the delay, or answers queued behind the
        // delayed one, would deliver stream 1 first.
        #expect(immediateAfter < delayedAfter, "the immediate answer waited for the delayed one")
        #expect(server.metrics.openStreams == 0)
    }
}
