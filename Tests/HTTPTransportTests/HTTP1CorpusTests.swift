import CHTTPParser
import Foundation
import Testing
@testable import HTTPTransport

/// The request corpus (Fixtures/http1-corpus.json): each case's recorded verdict, read
/// whole and byte by byte; and, while http-parser is in the package, the same corpus through
/// it, the server's previous parser.
@Suite struct HTTP1CorpusTests {
    struct Corpus: Decodable {
        struct Case: Decodable, CustomStringConvertible {
            var name: String
            var request: String
            var verdict: String
            var requests: Int
            var bytes: [UInt8] { request.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }
            var description: String { name }
        }
        var cases: [Case]
    }

    static let cases: [Corpus.Case] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/http1-corpus.json")
        do {
            let corpus = try JSONDecoder().decode(Corpus.self, from: Data(contentsOf: url))
            return corpus.cases
        } catch {
            Issue.record("cannot read \(url.path): \(error)")
            return []
        }
    }()

    /// Where the new parser refuses what http-parser took, each by a rule of issue 29's list
    /// (and the parser's documented strictness). Every other case must get the same verdict.
    static let stricterThanHTTPParser: [String: String] = [
        "obs_fold": "obs-fold", "obs_fold_tab": "obs-fold",
        "whitespace_before_first_field": "obs-fold (whitespace before the first field line)",
        "bare_cr_before_request": "bare CR", "bare_lf_request_line": "bare CR/LF: lines end in CRLF only",
        "bare_lf_field": "bare CR/LF: lines end in CRLF only", "bare_lf_end_of_head": "bare CR/LF: lines end in CRLF only",
        "whitespace_before_colon": "whitespace before the colon",
        "te_gzip_chunked": "unknown transfer coding", "te_two_fields": "chunked must be the only coding, once",
        "te_in_http10": "Transfer-Encoding in HTTP/1.0 (RFC 9112 section 6.1)",
        "chunk_size_trailing_space": "invalid chunk size", "double_space": "request line: one SP between its parts",
    ]

    @Test(arguments: cases)
    func theParserGivesTheRecordedVerdict(_ corpusCase: Corpus.Case) {
        let whole = HTTP1ParserDriver.run(corpusCase.bytes)
        #expect((whole.error?.name ?? "valid") == corpusCase.verdict, "\(whole)")
        if corpusCase.verdict == "valid" {
            #expect(whole.requests.count == corpusCase.requests && whole.pending == 0, "\(whole)")
        }
        let byteByByte = HTTP1ParserDriver.run(corpusCase.bytes, cuts: Array(0..<corpusCase.bytes.count))
        #expect(byteByByte == whole)
    }

    @Test(arguments: cases)
    func httpParserAgreesExceptWhereTheNewParserIsStricter(_ corpusCase: Corpus.Case) {
        let reference = HTTPParserReference.run(corpusCase.bytes)
        let valid = HTTP1ParserDriver.run(corpusCase.bytes).isValid
        if let rule = Self.stricterThanHTTPParser[corpusCase.name] {
            #expect(reference.valid && !valid, "listed as stricter (\(rule)), but http-parser \(reference), new \(valid)")
        } else {
            #expect(reference.valid == valid, "http-parser \(reference), new parser valid: \(valid)")
            if valid { #expect(reference.messages == corpusCase.requests) }
        }
    }

    @Test func everyListedDisagreementIsInTheCorpus() {
        let names = Set(Self.cases.map(\.name))
        #expect(Set(Self.stricterThanHTTPParser.keys).subtracting(names).isEmpty)
        #expect(Self.cases.count > 50)
    }
}

/// http-parser (Debian's 2.9) as the server used it: one request after another, a version
/// other than 1.0 or 1.1 refused once the head is in.
enum HTTPParserReference {
    struct Outcome: CustomStringConvertible {
        var valid: Bool
        var messages: Int
        var error: String
        var description: String { valid ? "valid (\(messages) requests)" : "invalid (\(error))" }
    }

    static func run(_ bytes: [UInt8]) -> Outcome {
        let parser = UnsafeMutablePointer<http_parser>.allocate(capacity: 1)
        let settings = UnsafeMutablePointer<http_parser_settings>.allocate(capacity: 1)
        let messages = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        defer { parser.deallocate(); settings.deallocate(); messages.deallocate() }
        messages.pointee = 0
        http_parser_init(parser, HTTP_REQUEST)
        http_parser_settings_init(settings)
        parser.pointee.data = UnsafeMutableRawPointer(messages)
        settings.pointee.on_headers_complete = { parser in
            guard let parser else { return -1 }
            return parser.pointee.http_major == 1 && parser.pointee.http_minor <= 1 ? 0 : -1
        }
        settings.pointee.on_message_complete = { parser in
            parser?.pointee.data.assumingMemoryBound(to: Int.self).pointee += 1
            return 0
        }
        let parsed = bytes.withUnsafeBytes { input in
            http_parser_execute(parser, settings, input.baseAddress?.assumingMemoryBound(to: CChar.self), input.count)
        }
        let error = c_http_parser_errno(parser)
        let valid = error == HPE_OK && (parsed == bytes.count || parser.pointee.upgrade != 0)
        return Outcome(valid: valid, messages: messages.pointee, error: String(cString: http_errno_name(error)))
    }
}
