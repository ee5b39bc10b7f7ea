/// Feeds bytes to an ``HTTP1RequestParser`` as a server session does (in pieces, presenting
/// what it did not consume again with the next piece) and collects the requests it reads.
///
/// For the parser's tests and the `fuzz-http1parser` target (docs/fuzzing.md), which check
/// that bytes cut anywhere read as the whole does; not for serving.
@_spi(Fuzzing)
public enum HTTP1ParserDriver {
    /// One complete request as read.
    public struct Request: Sendable, Equatable, CustomStringConvertible {
        public var method: String
        public var target: String
        /// `name: value`, in wire order.
        public var fields: [String]
        public var body: [UInt8]
        public var keepAlive: Bool
        public var isUpgrade: Bool

        public init(method: String, target: String, fields: [String], body: [UInt8], keepAlive: Bool, isUpgrade: Bool = false) {
            self.method = method
            self.target = target
            self.fields = fields
            self.body = body
            self.keepAlive = keepAlive
            self.isUpgrade = isUpgrade
        }

        public var description: String {
            "\(method) \(target) \(fields) body \(body.count) keepAlive \(keepAlive)\(isUpgrade ? " upgrade" : "")"
        }
    }

    /// What a run read.
    public struct Outcome: Sendable, Equatable, CustomStringConvertible {
        /// Complete requests, in order.
        public var requests: [Request] = []
        /// The error that stopped parsing, or nil.
        public var error: HTTP1ParseError.Kind?
        /// Bytes held at the end: a request not complete (0 after an upgrade or an error).
        public var pending = 0

        public var isValid: Bool { error == nil }
        public var description: String { "\(requests) error \(error?.name ?? "none") pending \(pending)" }
    }

    /// Parses `bytes` cut at `cuts` (offsets into `bytes`, in any order), each piece as one read.
    public static func run(_ bytes: [UInt8], cuts: [Int] = [], limits: HTTP1ParserLimits = HTTP1ParserLimits()) -> Outcome {
        var parser = HTTP1RequestParser(limits: limits)
        var outcome = Outcome()
        var pending: [UInt8] = []
        var current: Request?
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
