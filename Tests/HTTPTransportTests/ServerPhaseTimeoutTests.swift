import Foundation
import PushTestSupport
import Testing
@testable import HTTPTransport

/// Every phase of a connection has a time limit: the HTTP/2 preface and first SETTINGS after
/// the handshake, a request's headers, the whole request. After the first SETTINGS an idle
/// connection may stay until the idle timeout, as pre-warmed provider connections do.
///
/// The limits are short and the clients slow by a wide margin, so every wait is a hang
/// guard, not a measurement.
@Suite(.timeLimit(.minutes(1)))
struct ServerPhaseTimeoutTests {
    static let prefaceTimeout = Duration.milliseconds(500)

    /// Sends the HTTP/2 preface one byte every `interval` seconds, then a SETTINGS frame,
    /// reading whatever the server sends; prints how many bytes went out, whether and when
    /// the server closed, and the debug data of any GOAWAY.
    static let trickle = #"""
import json, socket, ssl, sys, time
port, tls, interval = int(sys.argv[1]), sys.argv[2] == "tls", float(sys.argv[3])
sock = socket.create_connection(("127.0.0.1", port), timeout=5)
if tls:
    ctx = ssl.create_default_context(cafile=sys.argv[4])
    ctx.set_alpn_protocols(["h2"])
    sock = ctx.wrap_socket(sock, server_hostname="localhost")
start = time.monotonic()
wire = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
sent, received, closed_at = 0, b"", None
def read_for(seconds):
    global received, closed_at
    deadline = time.monotonic() + seconds
    while closed_at is None:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        sock.settimeout(remaining)
        try:
            data = sock.recv(65536)
        except socket.timeout:
            return
        except (OSError, ssl.SSLError):
            data = b""
        if not data:
            closed_at = time.monotonic() - start
            return
        received += data
for byte in wire:
    if closed_at is not None:
        break
    try:
        sock.sendall(bytes([byte]))
        sent += 1
    except (OSError, ssl.SSLError):
        closed_at = time.monotonic() - start
        break
    read_for(interval)
read_for(2)
debug, offset = None, 0
while offset + 9 <= len(received):
    length = int.from_bytes(received[offset:offset + 3], "big")
    if received[offset + 3] == 7:
        debug = received[offset + 17:offset + 9 + length].decode("utf-8", "replace")
    offset += 9 + length
print(json.dumps({"sent": sent, "closed_at": closed_at, "goaway_debug": debug}))
"""#

    struct TrickleReport: Decodable {
        var sent: Int
        var closed_at: Double?
        var goaway_debug: String?
    }

    /// TLS with ALPN `h2`, and h2c on an HTTP/2-only server (as the mock's listeners are).
    @Test(arguments: [true, false])
    func aClientThatTricklesItsPrefaceIsClosedAtTheLimit(tls: Bool) async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: tls, handler: handler) {
            $0.connectionPrefaceTimeout = Self.prefaceTimeout
            $0.acceptsHTTP1 = false
        }
        defer { server.shutdown() }

        // 33 bytes at one per 0.4 s would take 13 s: far past the 0.5 s limit.
        let report = try await ProcessRunner.run(
            "python3", ["-c", Self.trickle, String(server.port), tls ? "tls" : "h2c", "0.4", TestCertificates.ca],
            timeout: .seconds(40))
        let line = try #require(report.stdout.split(separator: "\n").last, "\(report.stderr)")
        let result = try JSONDecoder().decode(TrickleReport.self, from: Data(line.utf8))

        #expect(result.closed_at != nil, "the trickling client was never closed: \(result)")
        #expect(result.sent < 24, "the whole preface went out before the close: \(result)")
        #expect(result.goaway_debug == "connection preface and SETTINGS not received within 0.5 seconds", "\(result)")
        #expect(server.metrics.prefaceTimeouts == 1)
        #expect(await eventually { server.metrics.openConnections == 0 })
        #expect(handler.requests.isEmpty)
    }

    /// A connection whose preface and SETTINGS are in may sit idle well past the preface
    /// limit, as a pre-warmed provider connection does, and is then served.
    @Test func aConnectionThatSentItsSettingsMayIdlePastTheLimit() async throws {
        let server = try TestServer(tls: true, handler: RecordingHandler()) {
            // Seconds: the client's preface must beat it after the handshake on a loaded
            // machine; the idle below is twice as long.
            $0.connectionPrefaceTimeout = .seconds(2)
        }
        defer { server.shutdown() }
        let script = #"""
port, cafile = int(sys.argv[1]), sys.argv[2]
c = connect(port, tls=True, cafile=cafile, alpn=["h2"])
c.pump(lambda c: c.settings(), timeout=5)
c.pump(lambda c: False, timeout=4)
c.send(1, [(":method", "GET"), (":scheme", "https"), (":path", "/late"), (":authority", "localhost")])
c.pump(lambda c: c.ended(1), timeout=5)
c.report()
"""#
        let report = try await PythonH2.run(script, [String(server.port), TestCertificates.ca])
        #expect(report.responses.first { $0.stream == 1 }?.status == 200, "\(report)")
        #expect(report.goaways.isEmpty)
        #expect(report.closed_at == nil)
        #expect(server.metrics.prefaceTimeouts == 0)
    }

    /// A request whose headers stop halfway is answered 408 at the headers' limit, long
    /// before the whole request's.
    @Test func http1HeadersThatStallGet408AtTheHeadersLimit() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler) {
            $0.requestHeadersTimeout = .milliseconds(300)
            $0.requestReadTimeout = .seconds(600)
        }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("POST /push HTTP/1.1\r\nHost: x\r\n")
        let (bytes, closed) = client.readUntilClose(timeout: .seconds(15))

        #expect(bytes.text.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(bytes.text)")
        #expect(bytes.text.hasSuffix("request headers not complete within 300 ms of its start\n"), "\(bytes.text)")
        #expect(closed)
        #expect(server.metrics.timedOutRequests == 1)
        #expect(handler.requests.isEmpty)
    }

    /// Headers complete in time: the body gets the whole request's limit, not the headers'.
    @Test func http1BodyAfterTheHeadersGetsTheWholeRequestsLimit() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler) {
            $0.requestHeadersTimeout = .milliseconds(200)
            $0.requestReadTimeout = .seconds(600)
        }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        client.send("POST /push HTTP/1.1\r\nHost: x\r\ncontent-length: 2\r\n\r\n{")
        try await Task.sleep(for: .milliseconds(800))
        client.send("}")
        let head = client.read(until: { $0.text.contains("ok POST /push 2") }, timeout: .seconds(15))
        #expect(head.text.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(head.text)")
        #expect(server.metrics.timedOutRequests == 0)
    }

    /// HTTP/2: a HEADERS frame without END_HEADERS and no CONTINUATION after it.
    @Test func http2HeadersThatStallEndTheirStreamAtTheHeadersLimit() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler) {
            $0.requestHeadersTimeout = .milliseconds(300)
            $0.requestReadTimeout = .seconds(600)
            $0.acceptsHTTP1 = false
        }
        defer { server.shutdown() }
        let script = #"""
import hpack
port = int(sys.argv[1])
c = connect(port)
block = hpack.Encoder().encode([(":method", "POST"), (":scheme", "http"), (":path", "/stalled"), (":authority", "x")])
# HEADERS (type 1) on stream 1 with END_STREAM but not END_HEADERS: a CONTINUATION must follow.
c.sock.sendall(len(block).to_bytes(3, "big") + b"\x01\x01" + (1).to_bytes(4, "big") + block)
frames = c.read_frames(timeout=10)
types = [type(f).__name__ for at, f in frames]
print(json.dumps({"types": types, "closed": c.closed_at is not None, "at": [at for at, f in frames]}))
"""#
        struct Frames: Decodable { var types: [String]; var closed: Bool; var at: [Double] }
        let result = try await PythonH2.run(script, [String(server.port)], as: Frames.self)
        // The 408 answer (HEADERS, DATA), the stream's reset, then GOAWAY.
        let answer = try #require(result.types.firstIndex(of: "HeadersFrame"), "\(result)")
        let goAway = try #require(result.types.firstIndex(of: "GoAwayFrame"), "\(result)")
        #expect(answer < goAway)
        #expect(result.types.contains("RstStreamFrame"), "\(result)")
        #expect(result.closed, "\(result)")
        #expect(server.metrics.timedOutRequests == 1)
        #expect(handler.requests.isEmpty)
    }
}
