import FuzzSupport
import HTTPTransport

// The HTTP/2 server session fed raw bytes: nghttp2 and HTTP2ServerSession (header and body
// limits, stream bookkeeping, GOAWAY, answers given at once, later, large or never), on an
// HTTP/2-only server such as the mock's APNs listeners.
//
// Input: one option byte (bit 0: read the output as it comes, else only after the last
// write; bit 1: send the client preface and an empty SETTINGS first, so mutations spend
// themselves on the frames after), then the bytes the client writes, in pieces split at
// "--PIECE--" (each piece is one write).

private let connection: RawConnection = {
    var configuration = HTTPServerConfiguration()
    configuration.acceptsHTTP1 = false
    configuration.maxConcurrentStreams = 100
    configuration.maxBodySize = 16 * 1024
    configuration.maxHeaderListSize = 8 * 1024
    return RawConnection(configuration: configuration, handler: FuzzHTTPHandler())
}()

/// The client preface and an empty SETTINGS frame.
private let opening: [UInt8] = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8) + [0, 0, 0, 4, 0, 0, 0, 0, 0]

@main
enum FuzzHTTP2Target {
    static func main() { FuzzDriver.run(fuzzHTTP2) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP2(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let options = input.byte()
    var pieces = input.pieces(separatedBy: Array("--PIECE--".utf8))
    if options & 2 != 0 { pieces.insert(opening, at: 0) }
    connection.run(pieces, drainsOutput: options & 1 != 0)
    return 0
}
