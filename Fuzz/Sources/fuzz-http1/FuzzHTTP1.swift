import FuzzSupport
import HTTPTransport

// The HTTP/1.1 request path fed raw bytes: HTTP1RequestParser, HTTP1ServerSession (pipelining,
// the 400/413/431/505 refusals, keep-alive) behind ServerConnection's protocol detection.
//
// Input: one option byte (bit 0: read the output as it comes), then the bytes the client
// writes, in pieces split at "\r\n--\r\n" (each piece is one write).

private let connection: RawConnection = {
    var configuration = HTTPServerConfiguration()
    configuration.acceptsHTTP1 = true
    configuration.maxBodySize = 16 * 1024
    configuration.maxHeaderListSize = 8 * 1024
    return RawConnection(configuration: configuration, handler: FuzzHTTPHandler())
}()

@main
enum FuzzHTTP1Target {
    static func main() { FuzzDriver.run(fuzzHTTP1) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let options = input.byte()
    let pieces = input.pieces(separatedBy: Array("\r\n--\r\n".utf8))
    connection.run(pieces, drainsOutput: options & 1 != 0)
    return 0
}
