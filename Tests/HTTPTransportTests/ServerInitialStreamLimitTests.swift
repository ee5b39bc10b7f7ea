import Foundation
import Testing
@testable import HTTPTransport

/// The first SETTINGS announces the stream limit at once, but it is enforced only from the
/// client's acknowledgement on: streams a client opened before it could read the limit are
/// served (RFC 9113 section 6.5.3), later ones beyond it are refused.
@Suite(.timeLimit(.minutes(1)))
struct ServerInitialStreamLimitTests {
    static let settingsMaxConcurrentStreams: UInt16 = 0x3
    static let typeRstStream: UInt8 = 0x3

    static func settingsEntries(_ payload: [UInt8]) -> [(UInt16, UInt32)] {
        var entries: [(UInt16, UInt32)] = []
        var offset = 0
        while offset + 6 <= payload.count {
            let id = UInt16(payload[offset]) << 8 | UInt16(payload[offset + 1])
            var value: UInt32 = 0
            for byte in payload[(offset + 2)..<(offset + 6)] { value = value << 8 | UInt32(byte) }
            entries.append((id, value))
            offset += 6
        }
        return entries
    }

    @Test func aFirstFlightBurstIsServedAndTheLimitHoldsAfterTheAcknowledgement() async throws {
        let handler = RecordingHandler { request, responder in
            let response = HTTPResponse(status: 200, text: "ok")
            if request.path.hasPrefix("/slow") {
                responder.respond(response, after: .milliseconds(300))
            } else {
                responder.respond(response)
            }
        }
        let server = try TestServer(handler: handler) { $0.maxConcurrentStreams = 1 }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)

        // First flight: five streams before the client has read anything.
        var burst = H2Frame.clientStart
        for index in 0..<5 { burst += H2Frame.headers(stream: UInt32(2 * index + 1), path: "/burst/\(index)", endStream: true) }
        client.send(burst)
        let first = H2Frame.parse(client.read(until: { bytes in
            H2Frame.parse(bytes).filter { $0.type == H2Frame.typeHeaders }.count >= 5
        }))
        let settings = try #require(first.first { $0.type == H2Frame.typeSettings && $0.flags & H2Frame.flagAck == 0 })
        let entries = Self.settingsEntries(settings.payload)
        #expect(entries.contains { $0.0 == Self.settingsMaxConcurrentStreams && $0.1 == 1 }, "the limit is announced at once")
        #expect(first.filter { $0.type == H2Frame.typeHeaders }.count == 5, "the first-flight burst is served")
        #expect(!first.contains { $0.type == Self.typeRstStream })

        // Acknowledge, then open three slow streams at once: only one fits now.
        var second = H2Frame.frame(type: H2Frame.typeSettings, flags: H2Frame.flagAck, stream: 0, payload: []) + H2Frame.ping()
        client.send(second)
        _ = client.read(until: H2Frame.hasPingAck)
        second = []
        for index in 0..<3 { second += H2Frame.headers(stream: UInt32(11 + 2 * index), path: "/slow/\(index)", endStream: true) }
        client.send(second)
        let later = H2Frame.parse(client.read(until: { bytes in
            let frames = H2Frame.parse(bytes)
            return frames.filter { $0.type == Self.typeRstStream }.count + frames.filter { $0.type == H2Frame.typeHeaders }.count >= 3
        }))
        let refused = later.filter { $0.type == Self.typeRstStream && $0.payload == [0, 0, 0, 7] }  // REFUSED_STREAM
        #expect(refused.count == 2, "beyond the acknowledged limit of 1, streams are refused: \(later.map(\.type))")
        client.close()
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }
}
