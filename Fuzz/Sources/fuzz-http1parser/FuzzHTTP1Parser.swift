import FuzzSupport
@_spi(Fuzzing) import HTTPTransport

// HTTP1RequestParser alone, fed by HTTP1ParserDriver as a server session feeds it (pieces,
// the unconsumed bytes presented again), with small limits so that each is reached.
//
// Input: one byte N (mod 8), then N cut offsets (2 bytes each, little-endian, modulo the
// length), then the bytes a client sends. What must hold besides "no crash, leak or hang":
// the pieces cut anywhere read the same requests (method, target, fields, body, keep-alive)
// and reach the same validity as the bytes read at once.

private let limits = HTTP1ParserLimits(
    maxRequestLineSize: 512, maxHeadSize: 2048, maxHeaderListSize: 1024, maxFieldCount: 16, maxBodySize: 4096)

@main
enum FuzzHTTP1ParserTarget {
    static func main() { FuzzDriver.run(fuzzHTTP1Parser) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTP1Parser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    var input = FuzzInput(UnsafeRawBufferPointer(start: data, count: size))
    let count = Int(input.byte() % 8)
    var offsets: [Int] = []
    for _ in 0..<count { offsets.append(Int(input.byte()) | Int(input.byte()) << 8) }
    let bytes = input.rest()
    let cuts = bytes.isEmpty ? [] : offsets.map { $0 % bytes.count }
    let whole = HTTP1ParserDriver.run(bytes, limits: limits)
    let split = HTTP1ParserDriver.run(bytes, cuts: cuts, limits: limits)
    fuzzCheck(split.requests == whole.requests && split.isValid == whole.isValid,
              "cut at \(cuts.sorted()): \(split) but read whole: \(whole)")
    return 0
}
