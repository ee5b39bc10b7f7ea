import Foundation
import HTTPTransport

// HTTP1RequestParser on a corpus of requests, for scripts/bench-http1-parser.sh, which counts
// its instructions under callgrind beside http-parser's on the same corpus
// (Benchmarks/http1-parser-reference).
//
//   http1-parser-bench CORPUS ROUNDS
//
// CORPUS: requests as a 4-byte little-endian length then the bytes, all valid. One parser
// reads them all, as a server connection's does (the reference's http_parser_init is a few
// stores); the field, target and body lengths are summed, as the reference's callbacks sum
// theirs.

let arguments = CommandLine.arguments
guard arguments.count == 3, let rounds = Int(arguments[2]), let corpus = readCorpus(arguments[1]) else {
    print("usage: http1-parser-bench CORPUS ROUNDS")
    exit(2)
}

func readCorpus(_ path: String) -> [[UInt8]]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    let bytes = [UInt8](data)
    var requests: [[UInt8]] = []
    var offset = 0
    while offset + 4 <= bytes.count {
        let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
        guard offset + 4 + length <= bytes.count else { return nil }
        requests.append(Array(bytes[(offset + 4)..<(offset + 4 + length)]))
        offset += 4 + length
    }
    return requests
}

/// Parses every request in `input`; returns (requests, bytes of targets, fields and bodies).
func parseAll(_ input: UnsafeRawBufferPointer, with parser: inout HTTP1RequestParser) -> (Int, Int) {
    var offset = 0
    var requests = 0
    var total = 0
    while true {
        do throws(HTTP1ParseError) {
            let (event, consumed) = try parser.parse(UnsafeRawBufferPointer(rebasing: input[offset...]))
            offset += consumed
            switch event {
            case .needMoreInput:
                return (requests, total)
            case .head:
                total += parser.head.target.count
                for field in parser.head.fields { total += field.name.count + field.value.count }
            case .body(let range):
                total += range.count
            case .end:
                requests += 1
                if parser.head.isUpgrade { return (requests, total) }
            }
        } catch {
            return (requests, total)
        }
    }
}

/// Reads the corpus `rounds` times with one parser; returns (requests, bytes). Local state,
/// so the loop pays none of a top-level variable's access checks, which the C driver has no
/// counterpart to.
func run(_ corpus: [[UInt8]], rounds: Int) -> (requests: Int, bytes: Int) {
    var parser = HTTP1RequestParser()
    var requests = 0
    var total = 0
    for _ in 0..<rounds {
        for request in corpus {
            let (count, bytes) = request.withUnsafeBytes { parseAll($0, with: &parser) }
            requests += count
            total += bytes
        }
    }
    return (requests, total)
}

let (requests, total) = run(corpus, rounds: rounds)
print("requests=\(requests) bytes=\(total)")
