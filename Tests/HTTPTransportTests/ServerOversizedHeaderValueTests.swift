import Foundation
import Testing
@testable import HTTPTransport

/// A header value larger than nghttp2's HPACK decoder takes (64 KiB) gets 431 on its stream,
/// like any header list over the limit, and the connection, its HPACK state included, goes on.
@Suite(.timeLimit(.minutes(1)))
struct ServerOversizedHeaderValueTests {
    /// Sends a request, one with a `size`-byte value (and fields around it), then two more
    /// whose headers the client's encoder indexes and then refers to; then one with 10,000
    /// fields, each indexed (so the table turns over many times), and one more.
    static let script = #"""
import random
port, size = int(sys.argv[1]), int(sys.argv[2])
c = connect(port)
# Raw strings: a value's encoded length is then its length (and Huffman coding in python is slow).
encode = c.conn.encoder.encode
c.conn.encoder.encode = lambda headers, huffman=True: encode(headers, huffman=False)
def request(sid, extra):
    c.send(sid, [(":method", "GET"), (":path", "/p%d" % sid), (":scheme", "http"), (":authority", "localhost"),
                 ("x-before", "b" * 20)] + extra)
    c.pump(lambda c: c.ended(sid), timeout=15)
request(1, [("x-keep", "first")])
rnd = random.Random(7)
request(3, [("x-huge", "".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(size))), ("x-after", "a")])
request(5, [("x-keep", "second"), ("x-later", "z" * 30)])
request(7, [("x-keep", "second"), ("x-later", "z" * 30)])
request(9, [("x-f%d" % i, "v") for i in range(10000)])
request(11, [("x-keep", "third")])
c.report()
"""#

    static func echoing() -> RecordingHandler {
        RecordingHandler { request, responder in
            let keep = request.headers["x-keep"] ?? "-"
            let later = request.headers["x-later"] ?? "-"
            responder.respond(HTTPResponse(status: 200, text: "\(request.path) \(keep) \(later)"))
        }
    }

    @Test(arguments: [65_537, 70_000, 1_000_000])
    func aHugeValueOrTooManyFieldsAreAnswered431AndTheConnectionGoesOn(size: Int) async throws {
        let handler = Self.echoing()
        let server = try TestServer(handler: handler)
        defer { server.shutdown() }

        let report = try await PythonH2.run(Self.script, [String(server.port), String(size)], timeout: .seconds(40))

        #expect(report.goaways.isEmpty, "\(report.goaways)")
        #expect(report.response(1)?.status == 200)
        let refused = try #require(report.response(3))
        #expect(refused.status == 431, "\(refused)")
        #expect(report.response(5)?.status == 200)
        #expect(report.response(5)?.body == "/p5 second \(String(repeating: "z", count: 30))")
        #expect(report.response(7)?.body == "/p7 second \(String(repeating: "z", count: 30))")
        #expect(report.response(9)?.status == 431)
        #expect(report.response(11)?.body == "/p11 third -")
        #expect(handler.requests.map(\.path) == ["/p1", "/p5", "/p7", "/p11"])
    }

    /// The same block gives the same bytes however it is split across reads, and a value's
    /// length split across reads is held back until it is whole.
    @Test func theFilterGivesTheSameBytesHoweverTheInputIsSplit() {
        var block: [UInt8] = [0x82, 0x86, 0x84]  // :method GET, :scheme http, :path /
        block += [0x40, 0x06] + Array("x-huge".utf8)
        block += OversizedValueFilter.encodeLength(100_000, byteCount: 4) + Array(repeating: UInt8(ascii: "a"), count: 100_000)
        block += [0x40, 0x07] + Array("x-after".utf8) + [0x01, UInt8(ascii: "1")]
        var input = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]
        var offset = 0
        var first = true
        while offset < block.count {
            let chunk = Array(block[offset..<min(offset + 16_384, block.count)])
            offset += chunk.count
            let flags: UInt8 = (offset == block.count ? 0x4 : 0) | (first ? 0x1 : 0)
            input += [UInt8(chunk.count >> 16), UInt8(chunk.count >> 8 & 0xff), UInt8(chunk.count & 0xff),
                      first ? 0x1 : 0x9, flags, 0, 0, 0, 1] + chunk
            first = false
        }

        func filtered(splitEvery step: Int) -> ([UInt8], [Int32]) {
            var filter = OversizedValueFilter(tableSizeLimit: 4096)
            var output: [UInt8] = []
            var streams: [Int32] = []
            var start = 0
            while start < input.count {
                let end = min(start + step, input.count)
                _ = input[start..<end].withUnsafeBytes { piece in
                    filter.feed(piece, rewritten: { streams.append($0.streamID) }) { output += $0; return true }
                }
                start = end
            }
            return (output, streams)
        }

        let (whole, wholeStreams) = filtered(splitEvery: input.count)
        #expect(whole.count == input.count)
        #expect(wholeStreams == [1])
        let changed = whole != input  // compared outside #expect, which would print 100 KB
        #expect(changed)
        // The value's length now says 49,152 raw bytes, in the same 4 bytes.
        let lengthAt = 24 + 9 + 9 + 3 + 2 + 6
        #expect(Array(whole[lengthAt..<(lengthAt + 4)]) == [0x7f, 0x81, 0xff, 0x02])
        // What follows the value is as the client sent it.
        #expect(Array(whole.suffix(11)) == Array(input.suffix(11)))
        for step in [1, 7, 4_099, 65_536] {
            let (split, splitStreams) = filtered(splitEvery: step)
            let same = split == whole
            #expect(same, "split every \(step)")
            #expect(splitStreams == [1], "split every \(step)")
        }
    }
}
