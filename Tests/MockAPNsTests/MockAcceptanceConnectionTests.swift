import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import PushTestSupport
import Testing

/// The mock's connection behaviour at the HTTP/2 frame level, seen by python's `h2` and
/// `hyperframe`: stream limits, GOAWAY after fatal rejections, and connection fault rules.
@Suite(.timeLimit(.minutes(2)))
struct MockAcceptanceConnectionTests {
    static let otherDevice = String(repeating: "cd", count: 32)

    /// Script helpers: `lim(c)` lists announced stream limits; `frame_log(frames)` turns raw
    /// hyperframe frames into JSON-ready dicts, decoding response headers with hpack.
    static let helpers = #"""
import hpack
def lim(c):
    return [s["values"]["3"] for s in c.settings() if "3" in s["values"]]

def frame_log(frames):
    decoder, log = hpack.Decoder(), []
    for at, f in frames:
        entry = {"at": at, "type": type(f).__name__, "stream": f.stream_id, "end": "END_STREAM" in f.flags}
        if entry["type"] == "HeadersFrame":
            entry["status"] = dict((n.decode() if isinstance(n, bytes) else n, v.decode() if isinstance(v, bytes) else v)
                                   for n, v in decoder.decode(f.data)).get(":status", "")
        elif entry["type"] == "DataFrame":
            entry["data"] = f.data.decode("utf-8", "replace")
        elif entry["type"] == "GoAwayFrame":
            entry["error"], entry["debug"], entry["last_stream"] = f.error_code, f.additional_data.decode("utf-8", "replace"), f.last_stream_id
        elif entry["type"] == "RstStreamFrame":
            entry["error"] = f.error_code
        log.append(entry)
    return log
"""#

    /// What `frame_log` prints.
    struct Frame: Decodable, Sendable {
        var at: Double
        var type: String
        var stream: Int
        var end: Bool
        var status: String?
        var data: String?
        var error: Int?
        var debug: String?
    }

    struct FrameReport: Decodable, Sendable {
        var frames: [Frame]
        var closed_at: Double?

        func index(_ type: String, stream: Int? = nil) -> Int? {
            frames.firstIndex { $0.type == type && (stream == nil || $0.stream == stream) }
        }
        func body(_ stream: Int) -> String {
            frames.filter { $0.type == "DataFrame" && $0.stream == stream }.compactMap(\.data).joined()
        }
    }

    /// Sends one valid push over h2c and logs every frame until the server closes or 30 s pass.
    static func onePushOverH2c(to mock: MockAPNsServer) async throws -> FrameReport {
        let script = helpers + "\n" + #"""
port, token, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port)
c.send(1, push_headers(dev, token), PAYLOAD)
frames = c.read_frames(timeout=30)
print(json.dumps({"frames": frame_log(frames), "closed_at": c.closed_at}))
"""#
        let port = String(Acceptance.address(of: mock.productionURL).port)
        return try await AcceptancePython.run(script, [port, try Acceptance.providerToken(), Acceptance.deviceToken], as: FrameReport.self)
    }

    static func h2cMock(faults: [FaultRule] = []) throws -> MockAPNsServer {
        try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.faults = faults
        }
    }

    @Test func theStreamLimitFollowsAuthenticationAndRejections() async throws {
        let mock = try Self.h2cMock()
        defer { mock.stop() }
        let script = Self.helpers + "\n" + #"""
port, token, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port)
c.pump(lambda c: len(lim(c)) >= 1)
c.send(1, push_headers(dev), PAYLOAD)
c.pump(lambda c: c.ended(1))
before = list(lim(c))
c.send(3, push_headers(dev, token), PAYLOAD)
c.pump(lambda c: c.ended(3) and lim(c)[-1] == 1000)
c.send(5, push_headers(dev, token) + [("apns-priority", "7")], PAYLOAD)
c.pump(lambda c: c.ended(5) and lim(c)[-1] == 1)
c.send(7, push_headers(dev, token), PAYLOAD)
c.pump(lambda c: c.ended(7) and lim(c)[-1] == 1000)
c.report(before=before)
"""#
        struct Output: Decodable, Sendable {
            var responses: [AcceptancePython.Report.Response]
            var settings: [AcceptancePython.Report.Settings]
            var before: [Int]
            var timed_out: Bool
        }
        let port = String(Acceptance.address(of: mock.productionURL).port)

        let output = try await AcceptancePython.run(script, [port, try Acceptance.providerToken(), Acceptance.deviceToken], as: Output.self)

        let limits = AcceptancePython.Report.streamLimits(in: output.settings)
        #expect(output.before.allSatisfy { $0 == 1 } && !output.before.isEmpty, "one stream until a valid token: \(output.before)")
        #expect(limits == [1, 1000, 1, 1000], "first SETTINGS 1, valid token 1000, rejection 1, success 1000")
        #expect([1, 3, 5, 7].map { id in output.responses.first { $0.stream == id }?.status } == [403, 200, 400, 200],
                "\(output.responses.map { ($0.stream, $0.status) })")
        #expect(!output.timed_out)
    }

    @Test func goAwayReasonsFromTheConfigurationCloseTheConnection() async throws {
        let token = try #require(DeviceToken(Acceptance.deviceToken))
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.validation.goAwayReasons = [.unregistered]
            $0.registry.devices[token] = RegisteredDevice(
                token: token, bundleID: Acceptance.topic, environment: .production,
                state: .unregistered(since: Date(timeIntervalSince1970: 1_700_000_000)))
        }
        defer { mock.stop() }

        let report = try await Self.onePushOverH2c(to: mock)

        #expect(report.frames.first { $0.type == "HeadersFrame" && $0.stream == 1 }?.status == "410")
        let goAway = try #require(report.frames.first { $0.type == "GoAwayFrame" }, "\(report.frames)")
        #expect(goAway.debug == #"{"reason":"Unregistered"}"#)
        #expect(report.closed_at != nil)
    }

    @Test func anIdleConnectionIsClosedWithGOAWAYIdleTimeout() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            /// Seconds: a client stalled between its preface and its push must not look idle.
            $0.server.idleTimeout = .seconds(5)
        }
        defer { mock.stop() }

        let report = try await Self.onePushOverH2c(to: mock)

        #expect(report.frames.first { $0.type == "HeadersFrame" && $0.stream == 1 }?.status == "200")
        let goAway = try #require(report.frames.first { $0.type == "GoAwayFrame" }, "\(report.frames)")
        #expect(goAway.debug == #"{"reason":"IdleTimeout"}"#)
        #expect(goAway.error == 0)
        #expect(report.closed_at != nil)
    }

    /// A push whose body does not arrive within `requestReadTimeout` is answered 408 in APNs'
    /// JSON (`RequestTimeout`, the mock's own reason), its stream reset (NO_ERROR), and the
    /// connection gets GOAWAY; a complete push held by a delay rule longer than that deadline
    /// is still answered, and the connection then closes. The stalled push is not captured.
    @Test func aPushNotReadWholeInTimeGets408RequestTimeoutAndADelayedOneIsStillAnswered() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.server.requestReadTimeout = .milliseconds(300)
            $0.faults = [FaultRule(id: "slow", action: .delay(.milliseconds(1200)))]
        }
        defer { mock.stop() }
        let script = Self.helpers + "\n" + #"""
port, token, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3]
c = connect(port)
c.send(1, push_headers(dev, token), PAYLOAD)
c.pump(lambda c: len(lim(c)) > 0 and lim(c)[-1] == 1000)
c.conn.send_headers(3, push_headers(dev, token) + [("apns-id", "0f3c9a7e-51d2-4b0e-8000-0000000000b3")], end_stream=False)
c.conn.send_data(3, PAYLOAD[:5], end_stream=False)
c.sock.sendall(c.conn.data_to_send())
frames = c.read_frames(timeout=10)
print(json.dumps({"frames": frame_log(frames), "closed_at": c.closed_at}))
"""#
        let port = String(Acceptance.address(of: mock.productionURL).port)

        let report = try await AcceptancePython.run(
            script, [port, try Acceptance.providerToken(), Acceptance.deviceToken], as: FrameReport.self)

        #expect(report.frames.first { $0.type == "HeadersFrame" && $0.stream == 3 }?.status == "408", "\(report.frames)")
        #expect(report.body(3) == #"{"reason":"RequestTimeout"}"#)
        #expect(report.frames.first { $0.type == "RstStreamFrame" && $0.stream == 3 }?.error == 0)
        #expect(report.index("GoAwayFrame") != nil, "\(report.frames)")
        #expect(report.frames.first { $0.type == "HeadersFrame" && $0.stream == 1 }?.status == "200", "\(report.frames)")
        #expect(report.closed_at != nil)
        #expect(mock.capture.records(matching: .all).map(\.outcome.status) == [200])
        #expect(mock.transportMetrics.timedOutRequests == 1)
        #expect(mock.metrics.rejectedPushes(.requestTimeout) == 1)
    }

    @Test func aFatalRejectionIsAnsweredOnItsStreamThenGOAWAYWithTheReason() async throws {
        let directory = try TestCertificates.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let sandboxOnly = try await onThread {
            let issued = try TestCertificates.issue(
                "sandbox", subject: "/UID=\(Acceptance.topic)/CN=Apple Development IOS Push Services: \(Acceptance.topic)",
                extensions: ["\(AppleCertificateOID.developmentEnvironment)=ASN1:NULL"], in: directory)
            return [issued.certificate, issued.key]
        }
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.clientCAPath = "\(Acceptance.certs)/ca.pem"
        }
        defer { mock.stop() }
        let script = Self.helpers + "\n" + #"""
port, ca, cert, key, dev = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
c = connect(port, tls=True, cafile=ca, cert=cert, key=key)
c.send(1, push_headers(dev, scheme="https"), PAYLOAD)
frames = c.read_frames(timeout=10)
print(json.dumps({"frames": frame_log(frames), "closed_at": c.closed_at}))
"""#
        let port = String(Acceptance.address(of: mock.productionURL).port)

        let report = try await AcceptancePython.run(
            script, [port, try #require(mock.trustRootsPath), sandboxOnly[0], sandboxOnly[1], Acceptance.deviceToken], as: FrameReport.self)

        let headers = try #require(report.index("HeadersFrame", stream: 1), "\(report.frames)")
        let goAway = try #require(report.index("GoAwayFrame"), "\(report.frames)")
        #expect(report.frames[headers].status == "403")
        #expect(report.body(1) == #"{"reason":"BadCertificateEnvironment"}"#)
        let streamEnd = try #require(report.frames.firstIndex { $0.stream == 1 && $0.end })
        #expect(streamEnd < goAway, "the stream is answered before GOAWAY")
        #expect(report.frames[goAway].debug == #"{"reason":"BadCertificateEnvironment"}"#)
        #expect(report.frames[goAway].error == 0)
        #expect(report.closed_at != nil, "the mock closes the connection after GOAWAY")
    }

    @Test func aGoAwayRuleAnswersThePushEvenWhenDelayedThenSendsGOAWAY() async throws {
        let mock = try Self.h2cMock(faults: [
            FaultRule(id: "away", count: 1, action: .goAway(errorCode: .noError, reason: .shutdown)),
            FaultRule(id: "slow", count: 1, action: .delay(.milliseconds(300))),
        ])
        defer { mock.stop() }
        let report = try await Self.onePushOverH2c(to: mock)

        let headers = try #require(report.index("HeadersFrame", stream: 1), "\(report.frames)")
        let goAway = try #require(report.index("GoAwayFrame"), "\(report.frames)")
        #expect(report.frames[headers].status == "200")
        #expect(headers < goAway)
        #expect(report.frames[goAway].debug == #"{"reason":"Shutdown"}"#)
        #expect(report.frames[goAway].error == 0)
        #expect(report.closed_at != nil)
        // The capture says what the connection did, as for a GOAWAY after a fatal rejection.
        let record = try #require(mock.capture.records(matching: .all).first)
        #expect(record.outcome.status == 200 && record.outcome.connectionAction == .goAway, "\(record.outcome)")
        #expect(record.faults.contains { $0.hasPrefix("away:") }, "\(record.faults)")
        #expect(try await Acceptance.freshPushStatus(mock) == 200, "the rule fired once")
    }

    @Test func aCloseConnectionRuleClosesWithoutAnAnswerOrGOAWAY() async throws {
        let mock = try Self.h2cMock(faults: [FaultRule(id: "cut", count: 1, action: .closeConnection)])
        defer { mock.stop() }
        let report = try await Self.onePushOverH2c(to: mock)

        #expect(report.closed_at != nil, "\(report.frames)")
        #expect(report.index("HeadersFrame", stream: 1) == nil)
        #expect(report.index("GoAwayFrame") == nil)
        #expect(mock.capture.records(matching: .all).first?.outcome.connectionAction == .close)
        #expect(try await Acceptance.freshPushStatus(mock) == 200)
    }

    /// One warm-up push raises the limit; then the faulted push (to `otherDevice`) and a
    /// normal one go out together on streams 3 and 5.
    static let faultedAndNormalScript = #"""
port, token, dev, other = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
c = connect(port)
c.send(1, push_headers(dev, token), PAYLOAD)
c.pump(lambda c: c.ended(1) and len(c.settings()) > 0 and c.conn.remote_settings.max_concurrent_streams == 1000)
c.conn.send_headers(3, push_headers(other, token))
c.conn.send_data(3, PAYLOAD, end_stream=True)
c.conn.send_headers(5, push_headers(dev, token))
c.conn.send_data(5, PAYLOAD, end_stream=True)
sent = c.now()
c.sock.sendall(c.conn.data_to_send())
c.pump(lambda c: c.ended(3, 5))
ends = [e.stream_id for _, e in c.events if isinstance(e, (h2.events.StreamEnded, h2.events.StreamReset))]
c.report(sent=sent, ends=ends)
"""#

    struct FaultedOutput: Decodable, Sendable {
        var responses: [AcceptancePython.Report.Response]
        var sent: Double
        /// Stream ids in the order their answers ended (or were reset): frames read in one
        /// go share a time.
        var ends: [Int]
        var timed_out: Bool
    }

    @Test func aResetStreamRuleResetsOnlyItsStream() async throws {
        let match = FaultMatch(deviceToken: DeviceToken(Self.otherDevice))
        let mock = try Self.h2cMock(faults: [FaultRule(id: "rst", match: match, action: .resetStream(.refusedStream))])
        defer { mock.stop() }
        let port = String(Acceptance.address(of: mock.productionURL).port)

        let output = try await AcceptancePython.run(
            Self.faultedAndNormalScript, [port, try Acceptance.providerToken(), Acceptance.deviceToken, Self.otherDevice],
            as: FaultedOutput.self)

        let reset = try #require(output.responses.first { $0.stream == 3 }, "\(output)")
        let normal = try #require(output.responses.first { $0.stream == 5 }, "\(output)")
        #expect(reset.reset == Int(HTTP2ErrorCode.refusedStream.rawValue))
        #expect(reset.status == 0, "no answer before the reset")
        #expect(normal.status == 200 && normal.reset == nil, "\(output)")
        #expect(!output.timed_out)
        #expect(try await Acceptance.settledOpenStreams(mock) == 0)
    }

    @Test func aDelayRuleHoldsOnlyItsOwnStream() async throws {
        let match = FaultMatch(deviceToken: DeviceToken(Self.otherDevice))
        let mock = try Self.h2cMock(faults: [FaultRule(id: "slow", match: match, action: .delay(.milliseconds(600)))])
        defer { mock.stop() }
        let port = String(Acceptance.address(of: mock.productionURL).port)

        let output = try await AcceptancePython.run(
            Self.faultedAndNormalScript, [port, try Acceptance.providerToken(), Acceptance.deviceToken, Self.otherDevice],
            as: FaultedOutput.self)

        let delayed = try #require(output.responses.first { $0.stream == 3 }, "\(output)")
        let normal = try #require(output.responses.first { $0.stream == 5 }, "\(output)")
        #expect(delayed.status == 200 && normal.status == 200)
        let delayedEnd = try #require(delayed.ended)
        #expect(delayedEnd - output.sent >= 0.59, "the delay is applied")
        #expect(output.ends.filter { $0 != 1 } == [5, 3], "the other stream is not held up: \(output)")
        #expect(!output.timed_out)
    }

    /// The first SETTINGS of a listener (entries by identifier, as decimal strings) and the
    /// increments of its WINDOW_UPDATEs on stream 0, read as raw frames before any request.
    struct OpeningFrames: Decodable, Sendable {
        var settings: [String: Int]
        var connectionWindowIncrements: [Int]
        var timed_out: Bool
    }

    static func openingFrames(port: Int) async throws -> OpeningFrames {
        let script = #"""
c = connect(int(sys.argv[1]))
first = lambda fs: [f for _, f in fs if type(f).__name__ == "SettingsFrame" and "ACK" not in f.flags]
window = lambda fs: [f.window_increment for _, f in fs if type(f).__name__ == "WindowUpdateFrame" and f.stream_id == 0]
frames = c.read_frames(until=lambda fs: first(fs) and window(fs))
settings = first(frames)[0].settings if first(frames) else {}
print(json.dumps({"settings": {str(int(k)): v for k, v in settings.items()}, "connectionWindowIncrements": window(frames),
                  "timed_out": c.timed_out}))
"""#
        return try await AcceptancePython.run(script, [String(port)], as: OpeningFrames.self)
    }

    /// The APNs listeners open with the SETTINGS APNs has been seen sending (pushy#878:
    /// 4096/1000/65535/16384/8000, with one stream until a valid token), and a connection
    /// window far wider than the 65,535-byte stream window. The control API keeps the
    /// transport's own settings.
    @Test func theAPNsListenersAnnounceAPNsSettingsAndAWideConnectionWindow() async throws {
        let mock = try Self.h2cMock()
        defer { mock.stop() }

        for url in [mock.productionURL, mock.sandboxURL] {
            let opening = try await Self.openingFrames(port: Acceptance.address(of: url).port)
            #expect(opening.settings == ["1": 4096, "3": 1, "4": 65_535, "5": 16_384, "6": 8000], "\(url)")
            #expect(opening.connectionWindowIncrements == [16 * 1024 * 1024 - 65_535], "\(url)")
            #expect(!opening.timed_out)
        }
        let control = try await Self.openingFrames(port: Acceptance.address(of: mock.controlURL).port)
        #expect(control.settings["4"] == HTTPServerConfiguration.defaultInitialWindowSize)
        #expect(control.settings["6"] == HTTPServerConfiguration.defaultMaxHeaderListSize)
        #expect(control.settings["1"] == nil && control.settings["5"] == nil)
    }

    @Test func theAnnouncedSettingsComeFromTheServerSettings() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs) {
            $0.server.tlsEnabled = false
            $0.server.headerTableSize = 0
            $0.server.initialWindowSize = 1 << 20
            $0.server.maxFrameSize = 32_768
            $0.server.maxHeaderListSize = 12_000
        }
        defer { mock.stop() }

        let opening = try await Self.openingFrames(port: Acceptance.address(of: mock.sandboxURL).port)

        #expect(opening.settings == ["1": 0, "3": 1, "4": 1 << 20, "5": 32_768, "6": 12_000])
        #expect(opening.connectionWindowIncrements == [MockServerSettings.connectionWindowSize - 65_535])
    }

    /// A small stream window must not hold back many full-size pushes at once: 200 VoIP
    /// pushes of exactly 5120 bytes (APNs' largest payload) go out together on one connection
    /// and are all accepted and captured whole.
    @Test func manyConcurrentMaximumSizePayloadsFlow() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: Acceptance.certs)
        defer { mock.stop() }
        let client = try Acceptance.client(for: mock.sandboxURL, trust: mock.trustRootsPath)
        let token = try Acceptance.providerToken()
        let prefix = #"{"aps":{},"pad":""#, suffix = #""}"#
        let body = prefix + String(repeating: "x", count: 5120 - prefix.utf8.count - suffix.utf8.count) + suffix
        #expect(body.utf8.count == 5120)
        let push = Acceptance.push(token: token, topic: Acceptance.topic + ".voip", body: body, pushType: "voip")
        // The first push raises the stream limit from 1, as a valid token does.
        #expect(try await client.send(push).status == 200)

        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 { group.addTask { try await client.send(push).status } }
            var statuses: [Int] = []
            for try await status in group { statuses.append(status) }
            return statuses
        }
        await client.close()

        #expect(statuses.count == 200 && statuses.allSatisfy { $0 == 200 }, "\(Set(statuses))")
        let records = mock.capture.records(matching: .all)
        #expect(records.count == 201 && records.allSatisfy { $0.payload.count == 5120 })
    }
}
