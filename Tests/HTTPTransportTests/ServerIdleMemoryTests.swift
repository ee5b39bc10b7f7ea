import Foundation
import Testing
@testable import HTTPTransport

/// What an idle HTTP/2 connection holds is bounded, counted by owner (`ConnectionMemory`:
/// nghttp2's allocations through its allocator hooks, the transport's buffers and objects),
/// not read from the resident size, which every other allocation in the process moves.
@Suite(.timeLimit(.minutes(1)))
struct ServerIdleMemoryTests {
    struct Done: Decodable { let answered: Int }

    /// Opens `count` idle TLS connections (preface and SETTINGS sent, the server's SETTINGS
    /// acknowledged) and one that sends a burst of 100 requests and then stays idle too;
    /// holds them all for `hold` seconds.
    static let script = #"""
port, count, cafile, hold = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
def settled(c):
    return any(isinstance(e, h2.events.SettingsAcknowledged) for _, e in c.events) and \
           any(isinstance(e, h2.events.RemoteSettingsChanged) for _, e in c.events)
idle = []
for _ in range(count):
    c = connect(port, tls=True, cafile=cafile, alpn=["h2"])
    c.pump(settled)
    idle.append(c)
burst = connect(port, tls=True, cafile=cafile, alpn=["h2"])
burst.pump(settled)
ids = [1 + 2 * i for i in range(100)]
for sid in ids:
    burst.conn.send_headers(sid, [(":method", "GET"), (":path", "/r%d" % sid), (":scheme", "https"),
                                  (":authority", "localhost"), ("x-filler", "v" * 200)], end_stream=True)
burst.sock.sendall(burst.conn.data_to_send())
burst.pump(lambda c: c.ended(*ids), timeout=10)
answered = sum(1 for r in burst.responses().values() if r["status"] == 200)
time.sleep(hold)
print(json.dumps({"answered": answered}))
"""#

    /// A connection that has sent no request holds at most `ConnectionMemory.idleBound`; one
    /// that sent a burst of requests holds no more of the transport's buffers and objects than
    /// that (one spare stream aside) once it has been quiet, and no more of nghttp2's than the
    /// HPACK table the client filled.
    @Test func idleConnectionsStayWithinTheBound() async throws {
        let server = try TestServer(tls: true, handler: RecordingHandler()) {
            $0.countsConnectionMemory = true
            // The connection's timer, which releases what a quiet connection kept, then runs every second.
            $0.requestHeadersTimeout = .seconds(1)
        }
        defer { server.shutdown() }
        let idleCount = 20

        async let python = PythonH2.run(Self.script, [String(server.port), String(idleCount), TestCertificates.ca, "8"],
                                        as: Done.self, timeout: .seconds(40))
        #expect(await eventually {
            server.metrics.openConnections == idleCount + 1 && server.metrics.requests == 100 && server.metrics.openStreams == 0
        })
        let settled = await onThread {
            let deadline = ContinuousClock.now + .seconds(5)
            var memory = server.server.connectionMemory()
            while !Self.released(memory, idleCount: idleCount), ContinuousClock.now < deadline {
                usleep(50_000)
                memory = server.server.connectionMemory()
            }
            return memory
        }
        let description = settled.map { "\($0)" }.joined(separator: "\n")
        #expect(Self.released(settled, idleCount: idleCount), "\(description)")
        let fresh = settled.filter { $0.total <= ConnectionMemory.idleBound }
        #expect(fresh.count == idleCount, "\(description)")
        // nghttp2's share is counted: its session is most of what an idle connection holds.
        #expect(settled.allSatisfy { $0.nghttp2 > 20 * 1024 }, "\(description)")

        let done = try await python
        #expect(done.answered == 100)
    }

    /// The burst's connection (the largest) is back to a fresh one's buffers and objects, but
    /// for one spare stream, and within the HPACK table's allowance.
    static func released(_ memory: [ConnectionMemory], idleCount: Int) -> Bool {
        guard memory.count == idleCount + 1, let burst = memory.max(by: { $0.total < $1.total }),
              let fresh = memory.min(by: { $0.total < $1.total }) else { return false }
        return burst.buffers + burst.objects <= fresh.buffers + fresh.objects + 512
            && burst.total <= ConnectionMemory.idleBound + ConnectionMemory.headerTableBound
    }
}
