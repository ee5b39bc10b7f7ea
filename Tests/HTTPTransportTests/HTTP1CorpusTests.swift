import Foundation
import Testing
@_spi(Fuzzing) @testable import HTTPTransport

/// The request corpus (Fixtures/http1-corpus.json): each case's recorded verdict, read
/// whole and byte by byte. The verdicts agree with http-parser's on validity except in the
/// cases marked `stricter_than_http_parser`, each naming the smuggling rule it applies
/// (scripts/bench-http1-parser.sh runs http-parser on the valid ones).
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

    @Test func theCorpusCoversValidAndRefusedRequests() {
        #expect(Self.cases.filter { $0.verdict == "valid" }.count >= 20)
        #expect(Set(Self.cases.map(\.verdict)).count >= 15)
    }
}
