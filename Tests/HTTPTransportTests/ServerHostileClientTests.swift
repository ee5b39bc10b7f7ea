import Foundation
import Testing
@testable import HTTPTransport

/// Floods a hostile HTTP/2 client may send: the server survives, ends that connection
/// cleanly, keeps serving others, and releases every stream.
@Suite(.timeLimit(.minutes(1)))
struct ServerHostileClientTests {
    static let typeRstStream: UInt8 = 0x3
    static let typeContinuation: UInt8 = 0x9

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

    /// A header block spread over more CONTINUATION frames than nghttp2 is allowed to
    /// take (`HTTP2ServerSession.maxContinuations`) ends the connection with GOAWAY
    /// ENHANCE_YOUR_CALM, never a bare close (issue finding 8).
    @Test func continuationFloodGetsGoAway() async throws {
        let server = try TestServer(handler: RecordingHandler())
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)

        var bytes = H2Frame.clientStart + H2Frame.frame(type: H2Frame.typeHeaders, flags: H2Frame.flagEndStream, stream: 1,
                                                        payload: H2Frame.requestBlock(path: "/flood"))
        let field: [UInt8] = [0x00, 3] + Array("x-a".utf8) + [1] + Array("b".utf8)  // literal, new name, not indexed
        for _ in 0..<(HTTP2ServerSession.maxContinuations + 100) {
            bytes += H2Frame.frame(type: Self.typeContinuation, flags: 0, stream: 1, payload: field)
        }
        client.send(bytes)
        let (reply, end) = client.readToEnd(timeout: .seconds(10))
        let goAways = H2Frame.parse(reply).filter { $0.type == H2Frame.typeGoAway }
        #expect(goAways.map { Array($0.payload[4..<8]) } == [[0, 0, 0, 0xb]], "GOAWAY ENHANCE_YOUR_CALM: \(H2Frame.parse(reply).map(\.type))")
        #expect(end == .closed)
        #expect(server.metrics.requests == 0)
        client.close()
        #expect(await eventually { server.metrics.openConnections == 0 && server.metrics.openStreams == 0 })
    }

    /// 10,000 header fields (about 280 KB in 18 frames) are read whole and answered 431;
    /// the connection stays usable.
    @Test func tenThousandHeaderFieldsGet431() async throws {
        let handler = RecordingHandler()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)

        var block = H2Frame.requestBlock(path: "/many")
        for index in 0..<10_000 {
            let name = Array(String(format: "x-header-%05d", index).utf8), value = Array(String(format: "value-%05d", index).utf8)
            block += [0x00, UInt8(name.count)] + name + [UInt8(value.count)] + value
        }
        var bytes = H2Frame.clientStart
        var offset = 0
        while offset < block.count {
            let end = min(offset + 16_384, block.count)
            let isFirst = offset == 0, isLast = end == block.count
            bytes += H2Frame.frame(type: isFirst ? H2Frame.typeHeaders : Self.typeContinuation,
                                   flags: (isFirst ? H2Frame.flagEndStream : 0) | (isLast ? H2Frame.flagEndHeaders : 0),
                                   stream: 1, payload: Array(block[offset..<end]))
            offset = end
        }
        bytes += H2Frame.headers(stream: 3, path: "/next", endStream: true)
        client.send(bytes)
        let reply = client.read(until: { H2Frame.parse($0).filter { $0.type == H2Frame.typeHeaders }.count >= 2 }, timeout: .seconds(10))
        let frames = H2Frame.parse(reply)
        let answers = frames.filter { $0.type == H2Frame.typeHeaders }
        // The default rejection answer (431) says why in its body.
        let refusal = frames.filter { $0.type == H2Frame.typeData && $0.stream == 1 }.flatMap(\.payload).text
        #expect(answers.contains { $0.stream == 1 } && refusal.contains("header list exceeds"), "\(frames.map(\.type)) \(refusal)")
        #expect(answers.contains { $0.stream == 3 }, "the connection still serves")
        #expect(!frames.contains { $0.type == H2Frame.typeGoAway })
        #expect(handler.requests.map(\.path) == ["/next"])
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
