import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushRules
import PushTestSupport
import StrictJSON
import Testing

/// The control API's inspection endpoints, over h2c: a push's findings under a profile, the
/// profiles on offer, counts per reason and a push's simulator file.
@Suite(.timeLimit(.minutes(3)))
struct ControlInspectionTests {
    typealias Server = MockAPNsServerTests

    /// A mock on free ports without TLS, and clients for its sandbox and control listeners.
    struct Running {
        let mock: MockAPNsServer
        let apns: HTTP2Client
        let control: HTTP2Client
        /// One provider token for every push: a new one per push would be refused
        /// (TooManyProviderTokenUpdates).
        let token: String

        init(_ configure: (inout MockConfiguration) -> Void = { _ in }) throws {
            mock = try MockAPNsServer.startForTesting(certsDirectory: Server.certs) {
                $0.server.tlsEnabled = false
                configure(&$0)
            }
            apns = try Server.client(for: mock.sandboxURL, trust: nil)
            control = try Server.client(for: mock.controlURL, trust: nil)
            token = try Server.providerToken()
        }

        /// Sends a push; answers its status.
        @discardableResult
        func push(_ body: String, topic: String = "com.example.app", token: String? = nil, extra: [(String, String)] = []) async throws -> Int {
            try await apns.send(Server.push(token: token ?? self.token, topic: topic, body: body, extra: extra)).status
        }

        /// GETs `path`; answers the status, the body as text and the headers.
        func get(_ path: String) async throws -> (status: Int, text: String, headers: HTTPHeaders) {
            let answer = try await control.send(HTTPClientRequest(path: path))
            return (answer.status, String(decoding: answer.body, as: UTF8.self), answer.headers)
        }

        /// GETs `path` and parses its JSON body.
        func json(_ path: String, status: Int = 200) async throws -> JSONValue {
            let answer = try await get(path)
            #expect(answer.status == status, "\(path): \(answer.text)")
            return try JSONParser.parse(Array(answer.text.utf8))
        }

        func stop() async {
            await apns.close()
            await control.close()
            mock.stop()
        }
    }

    static func rules(_ findings: JSONValue) -> [String] {
        findings.value(atKeys: ["findings"])?.elements?.compactMap { $0.value(atKeys: ["rule"])?.stringValue } ?? []
    }

    /// `GET /pushes/{seq}/findings` runs the profile's rules on the captured push: `apple`
    /// when none is named, `privacy` with its detectors; values stay out of the answer.
    @Test func findingsAreThePushInspectRulesOfTheProfileNamed() async throws {
        let running = try Running()
        let secret = "jane.doe@example.com"
        #expect(try await running.push(#"{"aps":{"alert":"hi","sound2":"x"},"contact":"\#(secret)"}"#) == 200)
        let seq = try #require(running.mock.capture.records().first?.sequence)

        let apple = try await running.json("/pushes/\(seq)/findings")
        #expect(apple.value(atKeys: ["seq"]) == .integer(Int64(seq)) && apple.value(atKeys: ["profile"]) == "apple")
        #expect(Self.rules(apple) == ["apple.aps-unknown-key"], "\(apple)")
        let finding = try #require(apple.value(atKeys: ["findings"])?.elements?.first)
        #expect(finding.value(atKeys: ["path"]) == "aps.sound2" && finding.value(atKeys: ["message"])?.stringValue?.isEmpty == false)

        let privacy = try await running.get("/pushes/\(seq)/findings?profile=privacy")
        let parsed = try JSONParser.parse(Array(privacy.text.utf8))
        #expect(Self.rules(parsed) == ["privacy.leaks"], "\(privacy.text)")
        #expect(parsed.value(atKeys: ["findings"])?.elements?.first?.value(atKeys: ["detector"]) == "email")
        #expect(!privacy.text.contains(secret), "a finding names the leak, never its value: \(privacy.text)")

        let hermes = try await running.json("/pushes/\(seq)/findings?profile=hermes")
        #expect(!Self.rules(hermes).isEmpty, "not a Hermes push: \(hermes)")
        await running.stop()
    }

    /// An unknown profile is a 400 listing the profiles; a push the ring does not hold, a
    /// 404; a sequence that is not a number, a 400; other parameters, the usual 400.
    @Test func findingsErrorsNameWhatIsWrong() async throws {
        let running = try Running()
        try await running.push(#"{"aps":{"alert":"hi"}}"#)
        let unknown = try await running.get("/pushes/1/findings?profile=strict")
        #expect(unknown.status == 400 && unknown.text == #"{"error":"profile: no profile \"strict\"; expected one of apple, privacy, badge, deep-link, hermes"}"# + "\n",
                "\(unknown.text)")
        let missing = try await running.get("/pushes/99/findings")
        #expect(missing.status == 404 && missing.text.contains("no push 99 in the capture"), "\(missing.text)")
        let notNumber = try await running.get("/pushes/first/findings")
        #expect(notNumber.status == 400 && notNumber.text.contains(#"found \"first\""#), "\(notNumber.text)")
        let stray = try await running.get("/pushes/1/findings?profiles=apple")
        #expect(stray.status == 400 && stray.text.contains(#"unknown query parameter \"profiles\"; expected one of profile"#), "\(stray.text)")
        let wrongMethod = try await running.control.send(HTTPClientRequest.control("DELETE", path: "/pushes/1/findings"))
        #expect(wrongMethod.status == 405 && wrongMethod.headers["allow"] == "GET")
        running.mock.capture.clear()
        #expect(try await running.get("/pushes/1/findings").status == 404, "a cleared push is gone")
        await running.stop()
    }

    /// `GET /profiles` lists the built-in profiles with a sentence each, then the policy the
    /// mock was given, whose rules `findings` then runs under its name.
    @Test func profilesListTheBuiltInsAndThePolicyGiven() async throws {
        let policy = try Policy(json: Array(#"{"name":"acme","required_keys":["acme_id"]}"#.utf8))
        let running = try Running { $0.policy = policy }
        let profiles = try await running.json("/profiles")
        let listed = profiles.value(atKeys: ["profiles"])?.elements ?? []
        #expect(listed.compactMap { $0.value(atKeys: ["name"])?.stringValue } == ["apple", "privacy", "badge", "deep-link", "hermes", "acme"])
        #expect(listed.allSatisfy { ($0.value(atKeys: ["description"])?.stringValue?.count ?? 0) > 10 }, "\(profiles)")

        try await running.push(#"{"aps":{"alert":"hi"}}"#)
        try await running.push(#"{"aps":{"alert":"hi"},"acme_id":"7"}"#)
        #expect(Self.rules(try await running.json("/pushes/1/findings?profile=acme")) == ["acme.required-keys"])
        #expect(Self.rules(try await running.json("/pushes/2/findings?profile=acme")).isEmpty)
        await running.stop()
    }

    /// `GET /pushes/reasons` counts the pushes the filters select: accepted, rejected,
    /// injected, and each reason with its status, most frequent first.
    @Test func reasonsCountOutcomesOfThePushesSelected() async throws {
        let running = try Running()
        #expect(try await running.push(#"{"aps":{"alert":"a"}}"#) == 200)
        #expect(try await running.push(#"{"aps":{"alert":"b"}}"#) == 200)
        #expect(try await running.push(#"{"aps":{"alert":"c"}}"#, token: "not-a-jwt") == 403)
        #expect(try await running.push(#"{"aps":{"alert":"d"}}"#, token: "still-not-a-jwt") == 403)
        #expect(try await running.push(#"{"aps":{"alert":"e"}}"#, topic: "com.example.other") == 400)
        try running.mock.faults.add(FaultRule(id: "boom", count: 1, action: .status(500, reason: .internalServerError)))
        #expect(try await running.push(#"{"aps":{"alert":"f"}}"#) == 500)

        let all = try await running.get("/pushes/reasons")
        #expect(all.status == 200)
        #expect(all.text == #"{"accepted":2,"injected":1,"reasons":[{"count":2,"reason":"InvalidProviderToken","status":403},"#
            + #"{"count":1,"reason":"TopicDisallowed","status":400},{"count":1,"reason":"InternalServerError","status":500}],"#
            + #""rejected":4,"total":6}"# + "\n", "\(all.text)")
        let narrowed = try await running.json("/pushes/reasons?outcome=accepted")
        #expect(narrowed.value(atKeys: ["total"]) == 2 && narrowed.value(atKeys: ["reasons"]) == .array([]))
        let topic = try await running.json("/pushes/reasons?topic=com.example.other")
        #expect(topic.value(atKeys: ["total"]) == 1 && topic.value(atKeys: ["rejected"]) == 1)
        let bad = try await running.get("/pushes/reasons?outcome=maybe")
        #expect(bad.status == 400 && bad.text.contains("outcome: expected"), "\(bad.text)")
        await running.stop()
    }

    /// `GET /pushes/{seq}/simulator` answers the `.apns` file as an attachment named by the
    /// apns-id: the payload plus `Simulator Target Bundle`, the topic without its suffix.
    @Test func simulatorAnswersTheApnsFileOfAPush() async throws {
        let running = try Running { $0.registry.bundleIDs.insert("com.example.voipapp") }
        let apnsID = "5e6f2a10-1b2c-4d3e-8f00-0000000000aa"
        var voip = Server.push(token: running.token, topic: "com.example.voipapp.voip",
                               body: #"{"aps":{"alert":{"title":"T","body":"B"}},"id":7}"#, extra: [("apns-id", apnsID)])
        voip.headers = HTTPHeaders(voip.headers.map { $0.name == "apns-push-type" ? ($0.name, "voip") : ($0.name, $0.value) })
        #expect(try await running.apns.send(voip).status == 200)
        let answer = try await running.get("/pushes/1/simulator")
        #expect(answer.status == 200)
        #expect(answer.headers["content-disposition"] == #"attachment; filename="\#(apnsID).apns""#)
        #expect(answer.headers["content-type"] == "application/json")
        let file = try JSONParser.parse(Array(answer.text.utf8))
        #expect(file == .object(["Simulator Target Bundle": "com.example.voipapp", "aps": .object(["alert": .object(["title": "T", "body": "B"])]),
                                 "id": 7]), "\(file)")

        try await running.push("[1]")
        let array = try await running.get("/pushes/2/simulator")
        #expect(array.status == 422 && array.text.contains("not a JSON object"), "\(array.text)")
        #expect(try await running.get("/pushes/3/simulator").status == 404)
        await running.stop()
    }
}

extension JSONValue {
    /// The elements, if this is an array.
    fileprivate var elements: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
