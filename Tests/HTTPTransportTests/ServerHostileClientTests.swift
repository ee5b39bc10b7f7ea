import Foundation
import Testing
@testable import HTTPTransport

/// Floods a hostile HTTP/2 client may send: the server survives, ends that connection
/// cleanly, keeps serving others, and releases every stream.
@Suite(.timeLimit(.minutes(1)))
struct ServerHostileClientTests {
    static let typeRstStream: UInt8 = 0x3

    /// 10,000 streams opened and reset at once (CVE-2023-44487, "rapid reset").
    @Test(arguments: [false, true])
    func rapidResetOfTenThousandStreams(handlerAnswers: Bool) async throws {
        let handler = RecordingHandler { request, responder in
            // Flooded streams are left unanswered in one variant; every other request is answered.
            if handlerAnswers || !request.path.hasPrefix("/reset/") { responder.respond(HTTPResponse(status: 200, text: "ok")) }
        }
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }

        let flood = try RawClient(port: server.port)
        var bytes = H2Frame.clientStart
        for index in 0..<10_000 {
            let stream = UInt32(2 * index + 1)
            bytes += H2Frame.headers(stream: stream, path: "/reset/\(index)", endStream: true)
            bytes += H2Frame.frame(type: Self.typeRstStream, flags: 0, stream: stream, payload: [0, 0, 0, 8])  // CANCEL
        }
        flood.send(bytes)
        let (reply, closed) = flood.readUntilClose(timeout: .seconds(20))
        let frames = H2Frame.parse(reply)

        // nghttp2 either keeps up or, past its reset rate limit, ends the connection with GOAWAY.
        if closed {
            #expect(frames.contains { $0.type == H2Frame.typeGoAway }, "a closing server says why with GOAWAY")
        }
        let other = try await Curl.request(["--http2-prior-knowledge", server.url("/after-the-flood")])
        #expect(other.status == 200, "\(other.result.stderr)")
        flood.close()
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 },
                "\(server.metrics)")
    }

    /// A 1 MB header block (in CONTINUATION frames) is refused without taking the server down.
    @Test func megabyteHeaderBlock() async throws {
        let server = try TestServer(handler: RecordingHandler())
        defer { server.shutdown() }

        let client = try RawClient(port: server.port)
        let value = [UInt8](repeating: UInt8(ascii: "a"), count: 1 << 20)
        // Literal header "x-big" without indexing, with a 1 MiB value (HPACK integer prefix 7 bits).
        var block: [UInt8] = H2Frame.requestBlock(path: "/big") + [0x00, 5] + Array("x-big".utf8)
        var length = value.count - 127
        block.append(0x7f)
        while length >= 128 {
            block.append(UInt8(length & 0x7f) | 0x80)
            length >>= 7
        }
        block.append(UInt8(length))
        block += value
        var bytes = H2Frame.clientStart
        let chunk = 16_384
        var offset = 0
        while offset < block.count {
            let end = min(offset + chunk, block.count)
            let isFirst = offset == 0, isLast = end == block.count
            bytes += H2Frame.frame(type: isFirst ? H2Frame.typeHeaders : 0x9,
                                   flags: (isFirst ? H2Frame.flagEndStream : 0) | (isLast ? H2Frame.flagEndHeaders : 0),
                                   stream: 1, payload: Array(block[offset..<end]))
            offset = end
        }
        client.send(bytes)
        let (reply, closed) = client.readUntilClose(timeout: .seconds(10))
        let frames = H2Frame.parse(reply)
        let refused = closed || frames.contains { $0.type == H2Frame.typeGoAway || $0.type == Self.typeRstStream }
            || reply.text.contains("431")
        #expect(refused, "the oversized header block must be refused")
        #expect(server.metrics.requests == 0)
        let other = try await Curl.request(["--http2-prior-knowledge", server.url("/after")])
        #expect(other.status == 200, "\(other.result.stderr)")
        client.close()
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }

    /// A 10 MB body gets 413 while it is still arriving, then RST_STREAM(NO_ERROR) asks the
    /// client to stop sending (RFC 9113 section 8.1); the server never buffers it.
    ///
    /// nghttp is the client here because curl 7.88 reports that RFC-sanctioned reset as an error.
    @Test func tenMegabyteBody() async throws {
        let server = try TestServer(handler: RecordingHandler())
        defer { server.shutdown() }
        let body = Data(repeating: UInt8(ascii: "x"), count: 10 << 20)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("body-\(UUID().uuidString)")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        let reply = try await ProcessRunner.run("nghttp", ["-v", "-d", file.path, server.url("/huge")])
        #expect(reply.stdout.contains(":status: 413"), "\(reply.stdout.suffix(2000))")
        #expect(reply.stdout.contains("RST_STREAM"))
        #expect(server.metrics.requests == 0)
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }
}
