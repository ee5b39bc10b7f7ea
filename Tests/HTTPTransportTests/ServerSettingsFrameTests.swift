import Foundation
import Testing
@testable import HTTPTransport

/// The first SETTINGS carries the limits; no later SETTINGS frame goes out unless a value
/// changes (issue finding 7).
@Suite(.timeLimit(.minutes(1)))
struct ServerSettingsFrameTests {
    /// Runs the opening handshake and two requests (each asking the handler to set the stream
    /// limit to `limitSetByHandler`, if any) and returns the server's non-ACK SETTINGS frames.
    static func settingsFrames(initialLimit: Int, limitSetByHandler: Int?) async throws -> [[UInt8]] {
        let handler = RecordingHandler { request, responder in
            if let limitSetByHandler { request.connection.setMaxConcurrentStreams(limitSetByHandler) }
            responder.respond(HTTPResponse(status: 200, text: "ok"))
        }
        let server = try TestServer(handler: handler) { $0.maxConcurrentStreams = initialLimit }
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        defer { client.close() }

        client.send(H2Frame.clientStart)
        var reply = client.read(until: { H2Frame.parse($0).contains { $0.type == H2Frame.typeSettings } })
        // Acknowledge the server's SETTINGS, then let a PING show that the ACK was processed.
        client.send(H2Frame.frame(type: H2Frame.typeSettings, flags: H2Frame.flagAck, stream: 0, payload: []) + H2Frame.ping(1))
        reply += client.read(until: H2Frame.hasPingAck)
        for stream: UInt32 in [1, 3] {
            client.send(H2Frame.headers(stream: stream, path: "/\(stream)", endStream: true) + H2Frame.ping(UInt8(stream + 1)))
            reply += client.read(until: { bytes in
                H2Frame.parse(bytes).contains { $0.type == H2Frame.typePing && $0.flags & H2Frame.flagAck != 0 && $0.payload.first == UInt8(stream + 1) }
            })
        }
        let frames = H2Frame.parse(reply)
        #expect(frames.filter { $0.type == H2Frame.typeHeaders }.count == 2, "both requests answered")
        return frames.filter { $0.type == H2Frame.typeSettings && $0.flags & H2Frame.flagAck == 0 }.map(\.payload)
    }

    @Test func theAcknowledgementOfTheFirstSettingsSendsNoOther() async throws {
        let settings = try await Self.settingsFrames(initialLimit: 1, limitSetByHandler: nil)
        #expect(settings.count == 1, "SETTINGS frames: \(settings)")
    }

    @Test func settingTheSameStreamLimitSendsNothing() async throws {
        let settings = try await Self.settingsFrames(initialLimit: 100, limitSetByHandler: 100)
        #expect(settings.count == 1, "SETTINGS frames: \(settings)")
    }

    @Test func aChangedStreamLimitIsAnnouncedOnce() async throws {
        let settings = try await Self.settingsFrames(initialLimit: 1, limitSetByHandler: 1_000)
        #expect(settings.count == 2, "SETTINGS frames: \(settings)")
        // SETTINGS_MAX_CONCURRENT_STREAMS (0x3) = 1000
        #expect(settings.last == [0x00, 0x03, 0x00, 0x00, 0x03, 0xe8])
    }
}
