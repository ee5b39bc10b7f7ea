import FuzzSupport
import HTTPTransport

// HTTP1RequestParser alone, fed as a server session feeds it (pieces, the unconsumed bytes
// presented again), with small limits so that each is reached.
//
// Input: one byte N (mod 8), then N cut offsets (2 bytes each, little-endian, modulo the
// length), then the bytes a client sends. What must hold besides "no crash, leak or hang":
// the pieces cut anywhere read the same requests (method, target, fields, body, keep-alive)
// and reach the same validity as the bytes read at once.

private let limits = HTTP1ParserLimits(
    maxRequestLineSize: 512, maxHeadSize: 2048, maxHeaderListSize: 1024, maxFieldCount: 16, maxBodySize: 4096)

private struct Outcome: Equatable {
    var requests: [[String]] = []
    var valid = true
}

private func run(_ bytes: [UInt8], cuts: [Int]) -> Outcome {
    var parser = HTTP1RequestParser(limits: limits)
    var outcome = Outcome()
    var pending: [UInt8] = []
    var current: [String] = []
    var body: [UInt8] = []
    var start = 0
    for end in cuts.sorted() + [bytes.count] where end >= start {
        pending += bytes[start..<end]
        start = end
        var offset = 0
        var stop = false
        pending.withUnsafeBytes { buffer in
            while !stop {
                let input = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                do throws(HTTP1ParseError) {
                    let (event, consumed) = try parser.parse(input)
                    switch event {
                    case .needMoreInput:
                        offset += consumed
                        return
                    case .head:
                        let head = parser.head
                        let bytes = UnsafeRawBufferPointer(rebasing: input[(consumed - head.size)..<consumed])
                        current = [head.method(in: bytes), head.string(head.target, in: bytes), "\(head.keepAlive)"]
                            + head.fields.map { head.string($0.name, in: bytes) + ":" + head.string($0.value, in: bytes) }
                        body = []
                    case .body(let range):
                        body += input[range]
                    case .end:
                        outcome.requests.append(current + [String(decoding: body, as: UTF8.self)])
                        if parser.head.isUpgrade { stop = true }
                    }
                    offset += consumed
                } catch {
                    outcome.valid = false
                    stop = true
                }
            }
        }
        if stop { return outcome }
        pending.removeFirst(offset)
    }
    return outcome
}

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
    let whole = run(bytes, cuts: [])
    let split = run(bytes, cuts: cuts)
    fuzzCheck(split == whole, "cut at \(cuts.sorted()): \(split) but read whole: \(whole)")
    return 0
}
