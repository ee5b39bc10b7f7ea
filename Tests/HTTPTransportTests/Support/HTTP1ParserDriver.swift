@testable import HTTPTransport

/// Feeds bytes to an `HTTP1RequestParser` as a server session does (in pieces, keeping what
/// it did not consume) and collects the requests it reads.
enum HTTP1ParserDriver {
    struct Request: Equatable, CustomStringConvertible {
        var method: String
        var target: String
        var fields: [String]
        var body: [UInt8]
        var keepAlive: Bool
        var isUpgrade = false

        var description: String {
            "\(method) \(target) \(fields) body \(body.count) keepAlive \(keepAlive)\(isUpgrade ? " upgrade" : "")"
        }
    }

    struct Outcome: Equatable, CustomStringConvertible {
        /// Complete requests, in order.
        var requests: [Request] = []
        /// The error that stopped parsing, or nil.
        var error: HTTP1ParseError.Kind?
        /// Bytes held at the end: a request not complete (0 after an upgrade or an error).
        var pending = 0

        var isValid: Bool { error == nil }
        var description: String { "\(requests) error \(error?.name ?? "none") pending \(pending)" }
    }

    /// Parses `bytes` cut at `cuts` (offsets, ascending), each piece as one read.
    static func run(_ bytes: [UInt8], cuts: [Int] = [], limits: HTTP1ParserLimits = HTTP1ParserLimits()) -> Outcome {
        var parser = HTTP1RequestParser(limits: limits)
        var outcome = Outcome()
        var pending: [UInt8] = []
        var current: Request?
        var start = 0
        for end in cuts + [bytes.count] where end >= start {
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
                            current = Request(
                                method: head.method(in: bytes), target: head.string(head.target, in: bytes),
                                fields: head.fields.map { head.string($0.name, in: bytes) + ": " + head.string($0.value, in: bytes) },
                                body: [], keepAlive: head.keepAlive, isUpgrade: head.isUpgrade)
                        case .body(let range):
                            current?.body += input[range]
                        case .end:
                            if let request = current { outcome.requests.append(request) }
                            current = nil
                            if parser.head.isUpgrade { stop = true }
                        }
                        offset += consumed
                    } catch {
                        outcome.error = error.kind
                        stop = true
                    }
                }
            }
            if stop {
                outcome.pending = 0
                return outcome
            }
            pending.removeFirst(offset)
        }
        outcome.pending = pending.count + (current == nil ? 0 : 1)
        return outcome
    }
}

extension HTTP1ParserDriver.Request {
    init(_ method: String, _ target: String, _ fields: [String], body: String = "", keepAlive: Bool = true, isUpgrade: Bool = false) {
        self.init(method: method, target: target, fields: fields, body: Array(body.utf8), keepAlive: keepAlive, isUpgrade: isUpgrade)
    }
}
