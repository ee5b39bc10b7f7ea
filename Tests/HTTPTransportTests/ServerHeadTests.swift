import Foundation
import Testing
@testable import HTTPTransport

/// A HEAD request over HTTP/1.1 gets the head a GET would (status, headers, the body's
/// length) and no body, whatever the handler answers: a body there is read by the client as
/// the start of the next answer on the connection (curl: "Excess found").
@Suite(.timeLimit(.minutes(1)))
struct ServerHeadTests {
    @Test func aHeadAnswerHasTheBodysLengthButNoBodyAndTheConnectionStaysInStep() throws {
        let server = try TestServer(handler: RecordingHandler())
        defer { server.shutdown() }
        let client = try RawClient(port: server.port)
        client.send("HEAD /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let text = String(decoding: client.readUntilClose().bytes, as: UTF8.self)
        let answers = text.components(separatedBy: "HTTP/1.1 ")
        #expect(answers.count == 3, "two answers: \(text)")
        let head = answers.count > 1 ? answers[1] : ""
        #expect(head.hasPrefix("200 OK\r\n"), "\(text)")
        #expect(head.hasSuffix("\r\n\r\n"), "the HEAD answer ends with its head: \(text)")
        #expect(head.contains("content-length: \("ok HEAD /first 0\n".utf8.count)"), "\(text)")
        #expect(answers.count == 3 && answers[2].hasSuffix("ok GET /second 0\n"), "\(text)")
    }
}
