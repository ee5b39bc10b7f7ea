import Foundation
import Testing
@testable import HTTPTransport

/// A client that sends and does not read: the server holds a bounded amount of output for it,
/// never loses its place in the byte stream, and after a fatal error serves nothing more.
@Suite(.timeLimit(.minutes(2)))
struct ServerUnreadOutputTests {
    /// The most output one connection may hold: the pause threshold, plus what one read of
    /// the loop's buffer (64 KiB) can add before the stream stops reading.
    static let heldOutputBound = ByteStream.outputPauseThreshold + 64 * 1024

    /// What the python client reports: every frame the server sent, as far as it matters here.
    struct FloodReport: Decodable {
        var sent: Int
        var acks: Int
        /// The PING ACKs carried payloads 0, 1, 2, … with none missing and none out of order.
        var inOrder: Bool
        var firstGap: Int?
        var goAways: [UInt32]
        var goAwayDebug: [String]
        var settings: Int
        var responses: [Int]
        var end: String
        /// From the connection to the last write: a server that ended the connection gives a
        /// peer that reads nothing `ByteStream.closeDrainTimeout` to take its GOAWAY.
        var sendSeconds: Double

        enum CodingKeys: String, CodingKey {
            case sent, acks, inOrder = "in_order", firstGap = "first_gap", goAways = "goaways"
            case goAwayDebug = "goaway_debug", settings, responses, end, sendSeconds = "send_seconds"
        }
    }

    /// Sends `pings` PINGs with unique payloads (a counter), `batch` per write, reading
    /// nothing; then optionally `tail_settings` empty SETTINGS frames in one write followed by
    /// a GET; then reads to the end and checks the ACKs against what was sent.
    static let floodScript = #"""
import select, socket, ssl, struct, sys, time, json

port, tls, cafile = int(sys.argv[1]), sys.argv[2] == "tls", sys.argv[3]
pings, batch, tail_settings = int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])

def frame(kind, flags, stream, payload=b""):
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
# A small window: what the client does not read stays with the server, not in its own kernel.
raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
raw.settimeout(10)
raw.connect(("127.0.0.1", port))
sock = raw
if tls:
    ctx = ssl.create_default_context(cafile=cafile)
    ctx.set_alpn_protocols(["h2"])
    sock = ctx.wrap_socket(raw, server_hostname="localhost")

sent = 0
def send(data):
    try:
        sock.sendall(data)
        return True
    except (OSError, ssl.SSLError):
        return False

started = time.monotonic()
alive = send(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + frame(4, 0, 0))
while alive and sent < pings:
    count = min(batch, pings - sent)
    alive = send(b"".join(frame(6, 0, 0, struct.pack(">Q", sent + i)) for i in range(count)))
    if alive:
        sent += count
    time.sleep(0.0005)
if alive and tail_settings:
    # :method GET, :scheme http, :path /after-the-flood, :authority, as literals.
    block = bytes([0x02, 3]) + b"GET" + bytes([0x86, 0x04, 16]) + b"/after-the-flood" + bytes([0x01, 9]) + b"127.0.0.1"
    send(frame(4, 0, 0) * tail_settings + frame(1, 0x5, 1, block))
send_seconds = time.monotonic() - started

received = bytearray()
end = "timeout"
deadline = time.time() + 30
while time.time() < deadline:
    try:
        chunk = sock.recv(1 << 20)
    except socket.timeout:
        break
    except (ConnectionResetError, ssl.SSLError, OSError):
        end = "reset"
        break
    if not chunk:
        end = "eof"
        break
    received += chunk

acks, goaways, debug, settings, responses = [], [], [], 0, []
offset = 0
while offset + 9 <= len(received):
    length = int.from_bytes(received[offset:offset + 3], "big")
    kind, flags = received[offset + 3], received[offset + 4]
    stream = int.from_bytes(received[offset + 5:offset + 9], "big") & 0x7fffffff
    payload = bytes(received[offset + 9:offset + 9 + length])
    if len(payload) < length:
        break
    offset += 9 + length
    if kind == 6 and flags & 1:
        acks.append(struct.unpack(">Q", payload)[0])
    elif kind == 7:
        goaways.append(int.from_bytes(payload[4:8], "big"))
        debug.append(payload[8:].decode("utf-8", "replace"))
    elif kind == 4 and not flags & 1:
        settings += 1
    elif kind == 1:
        responses.append(stream)

gap = next((i for i, value in enumerate(acks) if value != i), None)
print(json.dumps({"sent": sent, "acks": len(acks), "in_order": gap is None, "first_gap": gap,
                  "goaways": goaways, "goaway_debug": debug, "settings": settings,
                  "responses": responses, "end": end, "send_seconds": send_seconds}))
"""#

    static func flood(_ server: TestServer, tls: Bool, pings: Int, batch: Int = 500, tailSettings: Int = 0) async throws -> FloodReport {
        try await PythonH2.run(floodScript, [String(server.port), tls ? "tls" : "h2c", TestCertificates.ca,
                                             String(pings), String(batch), String(tailSettings)],
                               as: FloodReport.self, timeout: .seconds(90))
    }

    /// Issue findings 1 and 2: PINGs with unique payloads, 500 per write, nothing read until
    /// the end. The server holds a bounded amount of unread output and every ACK the client
    /// gets is in order, none missing.
    ///
    /// How the flood ends depends on when the server reads, which a loaded machine decides:
    /// a read that finds more than `maxUnreadAcknowledgements` ACKs still held ends the
    /// connection with GOAWAY ENHANCE_YOUR_CALM; a server whose output is blocked stops
    /// reading, so the flood waits in the kernel; a client still sending when the server has
    /// ended the connection gets a reset once `closeDrainTimeout` passes. The tests after
    /// this one force the GOAWAY.
    @Test(arguments: [false, true])
    func pingFloodWithNothingReadIsBoundedAndAnsweredInOrder(tls: Bool) async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: tls, handler: handler) { $0.acceptsHTTP1 = false }
        defer { server.shutdown() }

        let report = try await Self.flood(server, tls: tls, pings: 400_000)

        #expect(report.inOrder, "ACK \(report.firstGap ?? -1) is not PING \(report.firstGap ?? -1): the server lost its place")
        #expect(report.goAways.count <= 1 && report.goAways.allSatisfy { $0 == HTTP2ErrorCode.enhanceYourCalm.rawValue }, "\(report)")
        if !report.goAways.isEmpty {
            #expect(report.acks < report.sent, "nothing is answered after the GOAWAY: \(report)")
            #expect(report.end == "eof", "the server closes cleanly after its GOAWAY: \(report)")
        }
        #expect(await eventually { server.metrics.openConnections == 0 })
        let held = server.server.context.counters.largestHeldOutput.load(ordering: .relaxed)
        #expect(held <= Self.heldOutputBound, "held \(held) bytes of output for one connection")
    }

    /// Issue finding 3: after the flood has ended the connection, a valid request later in
    /// the same bytes is neither handled nor answered; the connection ends with GOAWAY.
    ///
    /// Whether the PINGs alone end it depends on when the server reads them: one that stops
    /// reading while its output is blocked sees a slow reader once the client reads. The
    /// SETTINGS before the request end it either way: a TLS record or a read holds more
    /// than `maxUnreadAcknowledgements` of them, which nghttp2's own limit rejects.
    @Test(arguments: [false, true])
    func aRequestAfterTheFloodIsNotServed(tls: Bool) async throws {
        let handler = RecordingHandler()
        let server = try TestServer(tls: tls, handler: handler) { $0.acceptsHTTP1 = false }
        defer { server.shutdown() }

        let report = try await Self.flood(server, tls: tls, pings: 300_000, tailSettings: 5_000)

        #expect(report.inOrder, "\(report)")
        #expect(report.responses.isEmpty, "nothing is answered after the connection failed: \(report)")
        #expect(handler.requests.isEmpty, "the request after the failure reached the handler")
        #expect(report.goAways == [HTTP2ErrorCode.enhanceYourCalm.rawValue], "\(report)")
        #expect(await eventually { server.metrics.openConnections == 0 })
    }

    /// One read holding more than `maxUnreadAcknowledgements` PINGs trips nghttp2's own limit
    /// (a fatal `mem_recv` error) even for a client that reads: GOAWAY ENHANCE_YOUR_CALM, the
    /// request in the same write is not served, and what was answered is a prefix.
    @Test func nghttp2sFloodLimitEndsTheConnectionWithGoAway() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler) { $0.acceptsHTTP1 = false }
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        var bytes = H2Frame.clientStart
        for index in 0..<3_000 {
            bytes += H2Frame.frame(type: H2Frame.typePing, flags: 0, stream: 0,
                                   payload: withUnsafeBytes(of: UInt64(index).bigEndian, Array.init))
        }
        bytes += H2Frame.headers(stream: 1, path: "/after-the-flood", endStream: true)
        client.send(bytes)
        let (reply, end) = client.readToEnd(timeout: .seconds(10))
        let frames = H2Frame.parse(reply)
        let acks = frames.filter { $0.type == H2Frame.typePing && $0.flags & H2Frame.flagAck != 0 }
        let payloads = acks.map { $0.payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) } }
        #expect(payloads == (0..<UInt64(payloads.count)).map { $0 }, "the ACKs are a prefix of the PINGs")
        #expect(acks.count <= HTTP2ServerSession.maxUnreadAcknowledgements)
        let goAways = frames.filter { $0.type == H2Frame.typeGoAway }
        #expect(goAways.map { Array($0.payload[4..<8]) } == [[0, 0, 0, 0xb]], "GOAWAY ENHANCE_YOUR_CALM")
        #expect(!frames.contains { $0.type == H2Frame.typeHeaders }, "the request after the flood is not answered")
        #expect(end == .closed)
        #expect(handler.requests.isEmpty)
        client.close()
    }

    /// Answers the peer does not read stay in nghttp2 (bodies are read lazily) rather than in
    /// the byte stream: 400 answers of 32 KiB to a client with a 2 GiB window are held back
    /// past 64 KiB, and all of them arrive whole once the client reads.
    @Test func unreadAnswersAreHeldBackAndAllArriveLater() async throws {
        let body = [UInt8](repeating: UInt8(ascii: "b"), count: 32 * 1024)
        let handler = RecordingHandler { _, responder in responder.respond(HTTPResponse(status: 200, body: body)) }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port, receiveBufferSize: 16_384)

        let count = 400
        // SETTINGS_INITIAL_WINDOW_SIZE 2^31-1, and the connection window opened as far.
        var bytes = H2Frame.preface + H2Frame.frame(type: H2Frame.typeSettings, flags: 0, stream: 0,
                                                    payload: [0x00, 0x04, 0x7f, 0xff, 0xff, 0xff])
        bytes += H2Frame.frame(type: 0x8, flags: 0, stream: 0, payload: [0x7f, 0xff, 0x00, 0x00])
        for index in 0..<count { bytes += H2Frame.headers(stream: UInt32(2 * index + 1), path: "/\(index)", endStream: true) }
        client.send(bytes)
        #expect(await eventually { handler.requests.count == count })
        try await Task.sleep(for: .milliseconds(200))

        let expected = count * body.count
        var received = 0
        do {
            var buffered: [UInt8] = []
            let deadline = ContinuousClock.now + .seconds(30)
            while received < expected, ContinuousClock.now < deadline, let chunk = client.read(timeout: .seconds(5)), !chunk.isEmpty {
                buffered += chunk
                var offset = 0
                while offset + 9 <= buffered.count {
                    let length = Int(buffered[offset]) << 16 | Int(buffered[offset + 1]) << 8 | Int(buffered[offset + 2])
                    guard offset + 9 + length <= buffered.count else { break }
                    if buffered[offset + 3] == H2Frame.typeData { received += length }
                    offset += 9 + length
                }
                buffered.removeFirst(offset)
            }
        }
        #expect(received == expected, "every answer arrives whole once the client reads")
        client.close()
        #expect(await eventually { server.metrics.openConnections == 0 })
        let held = server.server.context.counters.largestHeldOutput.load(ordering: .relaxed)
        #expect(held > 0 && held <= Self.heldOutputBound, "held \(held) bytes of output for one connection")
    }
}
