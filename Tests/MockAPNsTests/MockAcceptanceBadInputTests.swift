import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import Testing

/// Hostile input never brings the mock down: while python's `h2` sends it on one
/// connection, another connection keeps getting its pushes answered, and afterwards a fresh
/// connection is served and the transport holds no open streams.
@Suite(.timeLimit(.minutes(3)))
struct MockAcceptanceBadInputTests {
    /// One kind of bad input: a python script (after the prelude) that sends it on h2c and
    /// ends with `c.report()`, and what its own stream must have got.
    struct Attack: Sendable, CustomStringConvertible {
        var name: String
        var script: String
        /// Statuses the attacking stream 3 may get; empty when the connection may instead be reset or closed.
        var statuses: Set<Int>
        var reason: String?

        var description: String { name }
    }

    /// Opens the connection and gets the full stream limit with a valid push on stream 1.
    static let warmUp = #"""
port, token, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port)
c.send(1, push_headers(dev, token), PAYLOAD)
c.pump(lambda c: c.ended(1) and c.conn.remote_settings.max_concurrent_streams == 1000)

def send_big(c, sid, data):
    # Sends data as flow control allows, until done or the server answers, resets or closes.
    offset = 0
    while offset < len(data):
        r = c.responses().get(sid)
        if c.closed_at is not None or (r and (r["reset"] is not None or r["ended"] is not None)):
            return
        try:
            window = min(c.conn.local_flow_control_window(sid), c.conn.max_outbound_frame_size)
        except h2.exceptions.StreamClosedError:
            return
        if window <= 0:
            c.pump(lambda c: c.conn.local_flow_control_window(sid) > 0 or c.ended(sid), timeout=2)
            continue
        c.conn.send_data(sid, data[offset:offset + window], end_stream=offset + window >= len(data))
        offset += window
        try:
            c.sock.sendall(c.conn.data_to_send())
        except OSError as e:
            c.error = repr(e)
            return
"""#

    static let attacks: [Attack] = [
        Attack(name: "JSON nested 100,000 levels (past the transport's body limit: still APNs' answer)", script: #"""
c.conn.send_headers(3, push_headers(dev, token))
c.sock.sendall(c.conn.data_to_send())
send_big(c, 3, b"[" * 100000 + b"]" * 100000)
c.pump(lambda c: c.ended(3))
c.report()
"""#, statuses: [413], reason: "PayloadTooLarge"),
        Attack(name: "JSON nested 2,000 levels within the payload limit", script: #"""
c.send(3, push_headers(dev, token), b"[" * 2000 + b"]" * 2000)
c.pump(lambda c: c.ended(3))
c.report()
"""#, statuses: [400], reason: "PayloadEmpty"),
        Attack(name: "invalid UTF-8 in the payload", script: #"""
c.send(3, push_headers(dev, token), b'{"aps":{"alert":"\xff\xfe\xc3"}}')
c.pump(lambda c: c.ended(3))
c.report()
"""#, statuses: [400], reason: "PayloadEmpty"),
        Attack(name: "invalid UTF-8 in apns-topic", script: #"""
headers = [(k.encode(), v.encode()) for k, v in push_headers(dev, token) if k != "apns-topic"] + [(b"apns-topic", b"com.example.\xff\xfe")]
c.send(3, headers, PAYLOAD)
c.pump(lambda c: c.ended(3))
c.report()
"""#, statuses: [400], reason: "BadTopic"),
        Attack(name: "invalid UTF-8 in apns-collapse-id", script: #"""
headers = [(k.encode(), v.encode()) for k, v in push_headers(dev, token)] + [(b"apns-collapse-id", b"\xff" * 40)]
c.send(3, headers, PAYLOAD)
c.pump(lambda c: c.ended(3))
c.report()
"""#, statuses: [200, 400]),
        Attack(name: "a 1 MB header value (answered, and the connection still serves)", script: #"""
encode = c.conn.encoder.encode
c.conn.encoder.encode = lambda headers, huffman=True: encode(headers, huffman=False)  # pure-python Huffman is slow
c.send(3, push_headers(dev, token) + [("x-big", "x" * (1000 * 1000))], PAYLOAD)
c.pump(lambda c: c.ended(3))
c.send(5, push_headers(dev, token), PAYLOAD)
c.pump(lambda c: c.ended(5))
assert c.responses()[5]["status"] == 200, c.responses()[5]
c.report()
"""#, statuses: [431], reason: "RequestHeaderFieldsTooLarge"),
        Attack(name: "a 10 MB body", script: #"""
c.conn.send_headers(3, push_headers(dev, token))
c.sock.sendall(c.conn.data_to_send())
send_big(c, 3, b"x" * (10 * 1024 * 1024))
c.pump(lambda c: c.ended(3))
c.report()
"""#, statuses: [413], reason: "PayloadTooLarge"),
        Attack(name: "10,000 streams opened and reset", script: #"""
sid = 3
for i in range(10000):
    try:
        c.conn.send_headers(sid, push_headers(dev, token))
        c.conn.reset_stream(sid, 8)
    except h2.exceptions.ProtocolError as e:
        c.error = repr(e)
        break
    sid += 2
    if i % 100 == 99:
        try:
            c.sock.sendall(c.conn.data_to_send())
        except OSError as e:
            c.error = repr(e)
            break
        c.pump(lambda c: False, timeout=0.001)
        if c.closed_at is not None:
            break
try:
    c.sock.sendall(c.conn.data_to_send())
except OSError as e:
    c.error = repr(e)
c.pump(lambda c: c.closed_at is not None, timeout=1)
c.report(last_stream=sid)
"""#, statuses: []),
    ]

    @Test(arguments: attacks)
    func badInputNeitherCrashesTheMockNorStopsOtherConnections(_ attack: Attack) async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let token = try Acceptance.providerToken()
        let keeper = try Acceptance.client(for: mock.sandboxURL, trust: nil)
        let port = String(Acceptance.address(of: mock.sandboxURL).port)
        let script = Self.warmUp + "\n" + attack.script

        var keptStatuses = [try await keeper.send(Acceptance.push(token: token)).status]
        async let attacked = AcceptancePython.run(script, [port, token, Acceptance.deviceToken])
        for _ in 0..<5 {
            keptStatuses.append(try await keeper.send(Acceptance.push(token: token)).status)
            try await Task.sleep(for: .milliseconds(50))
        }
        let report = try await attacked
        keptStatuses.append(try await keeper.send(Acceptance.push(token: token)).status)
        await keeper.close()

        #expect(keptStatuses.allSatisfy { $0 == 200 }, "the other connection was served throughout: \(keptStatuses)")
        #expect(report.response(1)?.status == 200, "warm-up: \(report)")
        if !attack.statuses.isEmpty {
            let answer = report.response(3)
            #expect(answer.map { attack.statuses.contains($0.status) } == true, "\(attack): \(String(describing: answer))")
            if let reason = attack.reason {
                #expect(answer?.body == #"{"reason":"\#(reason)"}"#, "\(attack)")
            }
        }
        #expect(try await Acceptance.freshPushStatus(mock) == 200, "a fresh connection is served after \(attack)")
        #expect(try await Acceptance.settledOpenStreams(mock) == 0, "no stream is left open after \(attack)")
    }
}
