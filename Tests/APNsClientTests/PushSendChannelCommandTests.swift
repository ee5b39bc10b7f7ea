import Foundation
import HTTPTransport
import PushTestSupport
import Testing

/// `push-send --channel` and `push-send channel …`: help, usage errors (exit 2), and what
/// they send and print against a scripted cleartext HTTP/2 server.
@Suite(.timeLimit(.minutes(3)))
struct PushSendChannelCommandTests {
    static let channelID = "dHN0LXNyY2gtY2hubA=="
    static let auth = ["--auth-key", PushSendCommandTests.authKey]

    static func server() throws -> RecordingHTTPServer {
        try RecordingHTTPServer { request, _ in
            var headers: HTTPHeaders = [:]
            if let id = request.headers["apns-request-id"] { headers.add(name: "apns-request-id", value: id) }
            switch (request.method, request.path) {
            case ("POST", "/1/apps/com.example.app/channels"):
                headers.add(name: "apns-channel-id", value: Self.channelID)
                return HTTPResponse(status: 201, headers: headers)
            case ("GET", "/1/apps/com.example.app/channels"):
                return HTTPResponse(status: 200, headers: headers, body: Array(#"{"message-storage-policy":1,"push-type":"LiveActivity"}"#.utf8))
            case ("GET", "/1/apps/com.example.app/all-channels"):
                return HTTPResponse(status: 200, headers: headers, body: Array(#"{"channels":["\#(Self.channelID)","b3RoZXI="]}"#.utf8))
            case ("DELETE", "/1/apps/com.example.app/channels"):
                return HTTPResponse(status: 204, headers: headers)
            case ("POST", "/4/broadcasts/apps/com.example.app") where request.headers["apns-expiration"] == "0":
                return HTTPResponse(status: 200, headers: headers)
            default:
                headers.add(name: "content-type", value: "application/json")
                return HTTPResponse(status: 400, headers: headers, body: Array(#"{"reason":"BadExpirationDate"}"#.utf8))
            }
        }
    }

    @Test func channelSubcommandsSendAndPrint() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let common = ["--url", server.baseURL, "--bundle-id", "com.example.app"] + Self.auth
        let created = try await PushSendCommandTests.run(["channel", "create", "--policy", "most-recent-message"] + common)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "apns-channel-id: \(Self.channelID)\nmessage-storage-policy: 1\n")
        let read = try await PushSendCommandTests.run(["channel", "read"] + common + [Self.channelID])
        #expect(read.stdout == "apns-channel-id: \(Self.channelID)\nmessage-storage-policy: 1\npush-type: LiveActivity\n")
        let listed = try await PushSendCommandTests.run(["channel", "list", "--production"] + common)
        #expect(listed.status == 0 && listed.stdout == "\(Self.channelID)\nb3RoZXI=\n", "\(listed.stderr)")
        let deleted = try await PushSendCommandTests.run(["channel", "delete"] + common + [Self.channelID])
        #expect(deleted.status == 0 && deleted.stdout == "deleted: \(Self.channelID)\n", "\(deleted.stderr)")
        let requests = server.requests
        #expect(requests.map(\.method) == ["POST", "GET", "GET", "DELETE"])
        #expect(String(decoding: requests[0].body, as: UTF8.self).contains(#""message-storage-policy":1"#))
        #expect(requests[3].headers["apns-channel-id"] == Self.channelID)
    }

    @Test func aBroadcastPrintsItsRequestIDOrTheRejection() async throws {
        let server = try Self.server()
        defer { server.stop() }
        let requestID = "0f3c9a7e-51d2-4b0e-8000-0000000000b1"
        let common = ["--url", server.baseURL, "--channel", Self.channelID, "--bundle-id", "com.example.app", "--request-id", requestID,
                      "--payload", #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{}}}"#] + Self.auth
        let sent = try await PushSendCommandTests.run(common + ["--expiration", "0"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout == "status: 200\napns-request-id: \(requestID)\n")
        let refused = try await PushSendCommandTests.run(common)
        #expect(refused.status == 1)
        #expect(refused.stdout == "status: 400\nreason: BadExpirationDate\napns-request-id: \(requestID)\n")
        let broadcast = try #require(server.requests.first)
        #expect(broadcast.headers["apns-push-type"] == "liveactivity" && broadcast.headers["apns-channel-id"] == Self.channelID)
    }

    @Test func helpAndUsageErrorsExitTwoWithAHint() async throws {
        let help = try await PushSendCommandTests.run(["channel", "--help"])
        #expect(help.status == 0 && help.stdout.contains("SUBCOMMANDS:") && help.stdout.contains("create"))
        let createHelp = try await PushSendCommandTests.run(["channel", "create", "--help"])
        #expect(createHelp.status == 0 && createHelp.stdout.contains("--policy") && createHelp.stdout.contains("--bundle-id"))
        let topHelp = try await PushSendCommandTests.run(["--help"])
        #expect(topHelp.stdout.contains("--channel") && topHelp.stdout.contains("push-send channel"))

        let bundle = ["--bundle-id", "com.example.app"]
        let cases: [([String], String, String)] = [
            (["channel"], "a subcommand is required", "Usage: push-send channel"),
            (["channel", "rename"], "unknown channel subcommand", "Usage: push-send channel"),
            (["channel", "create"] + Self.auth, "missing --bundle-id", "Usage: push-send channel create"),
            (["channel", "create", "--policy", "2"] + bundle + Self.auth, "--policy", "Usage: push-send channel create"),
            (["channel", "delete"] + bundle + Self.auth, "missing CHANNEL_ID", "Usage: push-send channel delete"),
            (["channel", "read", "a", "b"] + bundle + Self.auth, "exactly one CHANNEL_ID", "Usage: push-send channel read"),
            (["channel", "list"] + bundle, "give --auth-key", "Usage: push-send channel list"),
            (["channel", "list", "--request-id", "x", "--url", "https://127.0.0.1:1"] + bundle + Self.auth, "canonical UUID",
             "Usage: push-send channel list"),
            (["--channel", Self.channelID, "--payload", "{}"] + Self.auth, "--channel needs --bundle-id", "Usage: push-send"),
            (["--channel", Self.channelID, "--topic", "t", "--payload", "{}"] + bundle + Self.auth, "no apns-topic", "Usage: push-send"),
            (["--channel", Self.channelID, "--payload", "{}", "abcd"] + bundle + Self.auth, "no DEVICE_TOKEN", "Usage: push-send"),
            (["--channel", Self.channelID, "--push-type", "alert", "--payload", "{}"] + bundle + Self.auth, "liveactivity", "Usage: push-send"),
            (["--topic", "t", "--payload", "{}", "abcd"] + bundle + Self.auth, "--bundle-id is for a broadcast", "Usage: push-send"),
        ]
        for (arguments, message, usage) in cases {
            let result = try await PushSendCommandTests.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(usage), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }
}
