import Testing
@_spi(Fuzzing) @testable import HTTPTransport

/// The HTTP/1.1 request parser alone: what it reads, what it refuses and why, its limits,
/// pipelining and input split anywhere.
@Suite struct HTTP1RequestParserTests {
    typealias Request = HTTP1ParserDriver.Request

    static func parse(_ text: String, limits: HTTP1ParserLimits = HTTP1ParserLimits()) -> HTTP1ParserDriver.Outcome {
        HTTP1ParserDriver.run(Array(text.utf8), limits: limits)
    }

    @Test func readsARequestWithAContentLengthBody() {
        let outcome = Self.parse("POST /3/device/ab HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nX-Empty:\r\nX-Pad: \t a b \t\r\n\r\nhello")
        #expect(outcome.error == nil)
        #expect(outcome.requests == [Request("POST", "/3/device/ab", ["Host: x", "Content-Length: 5", "X-Empty: ", "X-Pad: a b"], body: "hello")])
        #expect(outcome.pending == 0)
    }

    @Test func readsAChunkedBodyWithExtensionsAndTrailers() {
        let outcome = Self.parse("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n"
            + "5;name=value\r\nhello\r\n1 ; ext\r\n!\r\n0\r\nX-Trailer: t\r\nX-Other: u\r\n\r\nGET /next HTTP/1.1\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.requests == [Request("POST", "/", ["Transfer-Encoding: Chunked"], body: "hello!"),
                                     Request("GET", "/next", [])])
    }

    /// Trailers are checked as header fields are (then dropped).
    @Test(arguments: [("0\r\nX@Bad: t\r\n\r\n", HTTP1ParseError.Kind.invalidFieldName), ("0\r\n folded\r\n\r\n", .obsFold),
                      ("0\r\nX-T: a\u{7}\r\n\r\n", .invalidFieldValue), ("0\r\nX-T: a\nX: b\r\n\r\n", .bareLF)])
    func badTrailersAreRefused(trailers: String, kind: HTTP1ParseError.Kind) {
        #expect(Self.parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n" + trailers).error == kind)
    }

    @Test func pipelinedRequestsInOneReadComeInOrder() {
        let outcome = Self.parse("GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 2\r\n\r\nxyGET /c HTTP/1.0\r\n\r\n")
        #expect(outcome.requests == [Request("GET", "/a", []), Request("POST", "/b", ["Content-Length: 2"], body: "xy"),
                                     Request("GET", "/c", [], keepAlive: false)])
    }

    /// Every split of a pipelined exchange (two cuts anywhere, and byte by byte) reads the same requests.
    @Test func anySplitReadsTheSameRequests() {
        let text = "\r\nPOST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabcPOST /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3;x=y\r\nabc\r\n0\r\nT: v\r\n\r\nGET /c HTTP/1.1\r\nConnection: close\r\n\r\n"
        let bytes = Array(text.utf8)
        let whole = HTTP1ParserDriver.run(bytes)
        #expect(whole.requests.count == 3 && whole.error == nil && whole.pending == 0, "\(whole)")
        #expect(HTTP1ParserDriver.run(bytes, cuts: Array(1..<bytes.count)) == whole)
        for first in 0...bytes.count {
            for second in stride(from: first, through: bytes.count, by: 7) {
                #expect(HTTP1ParserDriver.run(bytes, cuts: [first, second]) == whole, "cuts \(first) \(second)")
            }
        }
    }

    /// A request that stops early is held, not answered.
    @Test func anIncompleteRequestWaits() {
        #expect(Self.parse("GET / HTTP/1.1\r\nHost: x\r\n").requests.isEmpty)
        #expect(Self.parse("GET / HTTP/1.1\r\nHost: x\r\n").error == nil)
        #expect(Self.parse("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc").requests.isEmpty)
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\n\r\n", true), ("GET / HTTP/1.1\r\nConnection: close\r\n\r\n", false),
        ("GET / HTTP/1.1\r\nConnection: Keep-Alive, CLOSE\r\n\r\n", false), ("GET / HTTP/1.0\r\n\r\n", false),
        ("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", true), ("GET / HTTP/1.0\r\nConnection: x, Keep-Alive \r\n\r\n", true),
        ("GET / HTTP/1.1\r\nConnection: closed\r\n\r\n", true),
    ])
    func keepAliveFollowsVersionAndConnection(request: String, keepAlive: Bool) {
        #expect(Self.parse(request).requests.map(\.keepAlive) == [keepAlive])
    }

    /// An upgrade (or CONNECT) ends what is HTTP/1.1 on the connection: the request is read,
    /// nothing after it.
    @Test func anUpgradeEndsParsing() {
        let upgrade = Self.parse("GET / HTTP/1.1\r\nUpgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n\r\nGET /x HTTP/1.1\r\n\r\n")
        #expect(upgrade.requests.map(\.isUpgrade) == [true] && upgrade.requests.map(\.keepAlive) == [false])
        let connect = Self.parse("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\u{16}\u{3}\u{1}")
        #expect(connect.requests.map(\.target) == ["example.com:443"] && connect.error == nil)
        #expect(Self.parse("GET / HTTP/1.1\r\nUpgrade: h2c\r\n\r\n").requests.map(\.isUpgrade) == [false])
    }

    /// Each way a request could be read two ways by two servers is refused.
    @Test(arguments: [
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", HTTP1ParseError.Kind.contentLengthWithTransferEncoding),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n", .contentLengthWithTransferEncoding),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc", .duplicateContentLength),
        ("POST / HTTP/1.1\r\nContent-Length: 3, 3\r\n\r\nabc", .invalidContentLength),
        ("POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\nabc", .invalidContentLength),
        ("POST / HTTP/1.1\r\nContent-Length: 3 3\r\n\r\nabc", .invalidContentLength),
        ("POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .invalidContentLength),
        ("GET / HTTP/1.1\r\nX-A: a\r\n folded\r\n\r\n", .obsFold),
        ("GET / HTTP/1.1\r\n X-A: a\r\n\r\n", .obsFold),
        ("GET / HTTP/1.1\r\nX-A: a\rb\r\n\r\n", .bareCR),
        ("GET / HTTP/1.1\r\nX-A: a\r\r\n\r\n", .bareCR),
        ("GET / HTTP/1.1\r\r\n\r\n", .bareCR),
        ("\rGET / HTTP/1.1\r\n\r\n", .bareCR),
        ("GET / HTTP/1.1\nX-A: a\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.1\r\nX-A: a\n\r\n", .bareLF),
        ("GET / HTTP/1.1\r\nX-A: a\r\n\n", .bareLF),
        ("GET / HTTP/1.1\r\nX-A : a\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nX-A\t: a\r\n\r\n", .whitespaceBeforeColon),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: identity\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: xchunked\r\n\r\n", .unsupportedTransferCoding),
        ("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .transferEncodingInHTTP10),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nz\r\n", .invalidChunk),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n", .invalidChunk),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5 \r\nhello\r\n0\r\n\r\n", .invalidChunk),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", .invalidChunk),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n", .bareLF),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhelloX\r\n0\r\n\r\n", .invalidChunk),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r0\r\n\r\n", .bareCR),
        ("GET / HTTP/1.1\r\nX-A: a\u{0}b\r\n\r\n", .invalidFieldValue),
        ("GET / HTTP/1.1\r\nX-A: a\u{7f}b\r\n\r\n", .invalidFieldValue),
        ("GET / HTTP/1.1\r\nX\u{1}A: a\r\n\r\n", .invalidFieldName),
        ("GET / HTTP/1.1\r\n: a\r\n\r\n", .invalidFieldName),
        ("GET / HTTP/1.1\r\nNoColon\r\n\r\n", .invalidFieldName),
        ("GET /\u{1} HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("GET  / HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("G@T / HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("FOO / HTTP/1.1\r\n\r\n", .unknownMethod),
        ("get / HTTP/1.1\r\n\r\n", .unknownMethod),
        ("GET / HTTP/1.1 trailing\r\n\r\n", .invalidRequestLine),
        ("GET / http/1.1\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.10\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.9\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/2.0\r\n\r\n", .unsupportedVersion),
        ("GET / HTTP/0.9\r\n\r\n", .unsupportedVersion),
    ])
    func ambiguousOrMalformedRequestsAreRefused(request: String, kind: HTTP1ParseError.Kind) {
        let outcome = Self.parse(request)
        #expect(outcome.error == kind, "\(outcome)")
        #expect(outcome.requests.isEmpty)
        #expect(kind.status == (kind == .unsupportedVersion ? 505 : 400))
    }

    /// Each limit: at it is fine, one byte past it is refused with its kind and the limit.
    @Test func requestLineLimit() {
        let limits = HTTP1ParserLimits(maxRequestLineSize: 20)
        #expect(Self.parse("GET /234567 HTTP/1.1\r\n\r\n", limits: limits).error == nil)  // 20 bytes
        #expect(Self.parse("GET /2345678 HTTP/1.1\r\n\r\n", limits: limits).error == .requestLineTooLong)
        // Refused without waiting for the line's end.
        #expect(Self.parse("GET /2345678901234567890", limits: limits).error == .requestLineTooLong)
        #expect(HTTP1ParseError.Kind.requestLineTooLong.status == 414)
    }

    @Test func headSizeLimit() {
        let request = "GET / HTTP/1.1\r\nX-A: 0123456789\r\n\r\n"  // 35 bytes
        #expect(Self.parse(request, limits: HTTP1ParserLimits(maxHeadSize: 35)).error == nil)
        #expect(Self.parse(request, limits: HTTP1ParserLimits(maxHeadSize: 34)).error == .headTooLarge)
        #expect(Self.parse("GET / HTTP/1.1\r\nX-A: " + String(repeating: "a", count: 100), limits: HTTP1ParserLimits(maxHeadSize: 64)).error
                == .headTooLarge)
        let trailers = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX-T: " + String(repeating: "t", count: 100) + "\r\n\r\n"
        #expect(Self.parse(trailers, limits: HTTP1ParserLimits(maxHeadSize: 64)).error == .headTooLarge)
    }

    /// Target + (name + value + 32) per field, as HTTP/2 counts a header list.
    @Test func headerListLimit() {
        let request = "GET /abc HTTP/1.1\r\nX-A: 12345\r\n\r\n"  // 4 + (3 + 5 + 32) = 44
        #expect(Self.parse(request, limits: HTTP1ParserLimits(maxHeaderListSize: 44)).error == nil)
        let over = Self.parse(request, limits: HTTP1ParserLimits(maxHeaderListSize: 43))
        #expect(over.error == .headerListTooLarge)
        // Refused while the value still arrives.
        #expect(Self.parse("GET / HTTP/1.1\r\nX-A: " + String(repeating: "a", count: 100), limits: HTTP1ParserLimits(maxHeaderListSize: 64)).error
                == .headerListTooLarge)
    }

    /// After an error the head holds what was read: the request line and the fields before
    /// the one that failed.
    @Test func aRefusedHeadKeepsTheFieldsBeforeTheFailure() {
        var parser = HTTP1RequestParser(limits: HTTP1ParserLimits(maxHeaderListSize: 100))
        let bytes = Array("GET /p HTTP/1.1\r\nX-First: 1\r\nX-Big: \(String(repeating: "b", count: 200))\r\nX-After: 2\r\n\r\n".utf8)
        bytes.withUnsafeBytes { input in
            let error: HTTP1ParseError? = {
                do throws(HTTP1ParseError) {
                    _ = try parser.parse(input)
                    return nil
                } catch { return error }
            }()
            #expect(error == HTTP1ParseError(.headerListTooLarge, limit: 100))
            #expect(parser.head.method(in: input) == "GET")
            #expect(parser.head.fields.map { parser.head.string($0.name, in: input) } == ["X-First"])
        }
    }

    @Test func fieldCountLimit() {
        let request = "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(Self.parse(request, limits: HTTP1ParserLimits(maxFieldCount: 3)).error == nil)
        #expect(Self.parse(request, limits: HTTP1ParserLimits(maxFieldCount: 2)).error == .tooManyFields)
    }

    @Test func bodyLimit() {
        let limits = HTTP1ParserLimits(maxBodySize: 5)
        #expect(Self.parse("POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", limits: limits).error == nil)
        #expect(Self.parse("POST / HTTP/1.1\r\nContent-Length: 6\r\n\r\n", limits: limits).error == .bodyTooLarge)
        let chunked = "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n"
        #expect(Self.parse(chunked + "0\r\n\r\n", limits: limits).error == nil)
        #expect(Self.parse(chunked + "1\r\n", limits: limits).error == .bodyTooLarge)
        #expect(Self.parse("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0000000000000000000000006\r\n", limits: limits).error
                == .bodyTooLarge)
        #expect(HTTP1ParseError.Kind.bodyTooLarge.status == 413 && HTTP1ParseError.Kind.headerListTooLarge.status == 431)
    }

    @Test func defaultsAreTheServersLimits() {
        let limits = HTTP1ParserLimits()
        #expect(limits.maxHeaderListSize == HTTPServerConfiguration.defaultMaxHeaderListSize)
        #expect(limits.maxBodySize == HTTPServerConfiguration.defaultMaxBodySize)
        #expect(limits.maxHeadSize == 80 * 1024)
    }

    /// The head's parts are ranges into the bytes it arrived in.
    @Test func theHeadPointsIntoTheInput() throws {
        var parser = HTTP1RequestParser()
        let bytes = Array("\r\nGET /x HTTP/1.0\r\nA: b\r\n\r\n".utf8)
        try bytes.withUnsafeBytes { input in
            let (event, consumed) = try parser.parse(input)
            #expect(event == .head && consumed == bytes.count)
            #expect(parser.head.size == bytes.count - 2)
            #expect(parser.head.method == 0..<3 && parser.head.target == 4..<6 && parser.head.minorVersion == 0)
            #expect(parser.head.fields == [HTTP1RequestHead.Field(name: 17..<18, value: 20..<21)])
            #expect(try parser.parse(UnsafeRawBufferPointer(rebasing: input[consumed...])).event == .end)
        }
    }
}
