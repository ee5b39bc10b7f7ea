import APNsCapture
import APNsCore
import Foundation
import HTTPTransport
@testable import MockAPNsControl
import PushTestSupport
import Testing

/// The client's record-by-record reads, the raw body of an unexpected answer, and a read
/// that a cancelled task still makes: what a tool needs that reports each problem its own way.
@Suite(.timeLimit(.minutes(1)))
struct PushListingTests {
    static let record = CaptureRecord(
        sequence: 1, receivedAtMicroseconds: 1_795_958_793_123_456, environment: .sandbox, connectionID: 1,
        method: "POST", path: "/3/device/" + String(repeating: "ab", count: 32), headers: ["apns-topic": "com.example.app"],
        deviceToken: DeviceToken(String(repeating: "ab", count: 32)), topic: "com.example.app",
        payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8),
        outcome: PushOutcome(status: 200, reason: nil, apnsID: "8A2F1E3C-0000-4000-8000-00000000ABCD", uniqueID: nil,
                             timestamp: nil, connectionAction: .none))

    /// `{"count":…,"pushes":[…]}` with these elements.
    static func answer(_ elements: [String], status: Int = 200) -> HTTPResponse {
        let line = String(decoding: record.encodedLine(), as: UTF8.self).trimmingCharacters(in: .newlines)
        let body = #"{"count":\#(elements.count),"pushes":["# + elements.map { $0 == "good" ? line : $0 }.joined(separator: ",") + "]}"
        return HTTPResponse(status: status, headers: ["content-type": "application/json"], body: Array(body.utf8))
    }

    @Test func aListingKeepsEachRecordsOwnResult() async throws {
        let server = try RecordingHTTPServer { _, _ in
            Self.answer(["good", #"{"v":99,"seq":2}"#, #"{"v":2,"seq":0}"#])
        }
        defer { server.stop() }
        let control = try MockControlClient(baseURL: server.baseURL + "/mock/")
        let listing = try await control.pushListing(matching: CaptureFilter(topic: "com.example.app"), limit: 5)
        #expect(listing.results.count == 3)
        #expect(listing.records == [Self.record])
        #expect(listing.satisfied)
        #expect(listing.url == server.baseURL + "/mock/pushes?topic=com.example.app&limit=5")
        guard case .failure(let newer) = listing.results[1], case .failure(let damaged) = listing.results[2] else {
            Issue.record("records 2 and 3 decoded: \(listing.results)")
            return
        }
        #expect(newer.kind == .unsupportedVersion)
        #expect(damaged.kind == .malformed)
        // The all-or-nothing read refuses the same answer, naming the record.
        let error = await #expect(throws: MockControlError.self) { _ = try await control.pushes() }
        #expect(error?.kind == .malformedAnswer)
        #expect(error?.detail.hasPrefix("record 2: ") == true, "\(String(describing: error))")
        #expect(error?.url == server.baseURL + "/mock/pushes")
        await control.close()
    }

    @Test func aWaitListingSaysWhetherItWasSatisfied() async throws {
        let server = try RecordingHTTPServer { _, _ in Self.answer(["good"], status: 408) }
        defer { server.stop() }
        let control = try MockControlClient(baseURL: server.baseURL)
        let listing = try await control.waitListing(count: 2, timeout: .seconds(1))
        #expect(!listing.satisfied)
        #expect(listing.records.count == 1)
        #expect(server.requests.first?.path == "/pushes/wait?count=2&timeout=1")
        await control.close()
    }

    /// Another server may answer there: its body is kept as sent, and shown only quoted,
    /// escaped and cut short.
    @Test func anUnexpectedAnswerKeepsItsRawBody() async throws {
        let text = "no \u{1B}[31mpushes here\n" + String(repeating: "x", count: 3000)
        let server = try RecordingHTTPServer { _, _ in HTTPResponse(status: 503, text: text) }
        defer { server.stop() }
        let control = try MockControlClient(baseURL: server.baseURL)
        let error = await #expect(throws: MockControlError.self) { _ = try await control.pushListing() }
        #expect(error?.kind == .answered(status: 503, error: nil))
        #expect(error?.body == Array(text.utf8))
        #expect(error?.url == server.baseURL + "/pushes")
        let quoted = error?.quotedBody ?? ""
        #expect(quoted.hasPrefix(#""no \u001b[31mpushes here\n"#), "\(quoted)")
        #expect(quoted.hasSuffix(" (cut short)") && !quoted.contains("\u{1B}"), "\(quoted)")
        #expect(quoted.count < 600, "\(quoted.count) characters")
        await control.close()
    }

    /// A read marked not cancellable is still sent from a cancelled task (the last read after
    /// Ctrl-C ended a wait); an ordinary one fails at once there.
    @Test func aNonCancellableReadRunsInACancelledTask() async throws {
        let server = try RecordingHTTPServer { _, _ in Self.answer(["good"]) }
        defer { server.stop() }
        let control = try MockControlClient(baseURL: server.baseURL)
        let reads = Task { () -> (ordinary: MockControlError?, last: PushListing?) in
            withUnsafeCurrentTask { $0?.cancel() }
            var ordinary: MockControlError?
            do throws(MockControlError) { _ = try await control.pushListing() } catch { ordinary = error }
            let last = try? await control.pushListing(timeout: .seconds(5), cancellable: false)
            return (ordinary, last)
        }
        let (ordinary, last) = await reads.value
        #expect(ordinary?.kind == .cannotConnect)
        #expect(last?.records == [Self.record])
        await control.close()
    }

    @Test func aBaseURLKeepsItsPrefixAndAuthority() throws {
        let base = try ControlBaseURL("http://[::1]:2199/mock//")
        #expect(base.host == "::1" && base.port == 2199 && base.basePath == "/mock" && base.authority == "[::1]:2199")
        #expect(base.url(of: "/pushes?limit=1") == "http://[::1]:2199/mock/pushes?limit=1")
        #expect(base.description == "http://[::1]:2199/mock//")
        let error = #expect(throws: MockControlError.self) { try ControlBaseURL("ftp://x") }
        #expect(error?.kind == .invalidBaseURL && error?.url == "ftp://x")
    }
}
