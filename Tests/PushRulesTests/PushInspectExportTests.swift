import Foundation
import HTTPTransport
import JWTVerify
import MockAPNs
import PushTestSupport
import StrictJSON
import Testing

/// `push-inspect export --apns DIR`: simulator files from a capture file and from a live mock.
@Suite(.timeLimit(.minutes(2)))
struct PushInspectExportTests {
    typealias P = PushInspectProcess
    static let apnsID = "8a2f1e3c-0000-4000-8000-00000000abcd"

    static func folder() -> String {
        NSTemporaryDirectory() + "push-inspect-export-\(UUID().uuidString)"
    }

    /// The `.apns` files in `folder`, by name, parsed.
    static func files(in folder: String) throws -> [String: JSONValue] {
        var files: [String: JSONValue] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder).appendingPathComponent(name))
            files[name] = try JSONParser.parse(Array(bytes))
        }
        return files
    }

    /// One file per push, named by its apns-id (a second push of the same id gets its seq too),
    /// holding the payload and the topic's bundle ID; a push whose payload is no object is
    /// skipped with a warning. The filters apply.
    @Test func writesOneFilePerCapturedPush() async throws {
        let headers = [("apns-topic", "com.example.app.voip"), ("apns-push-type", "voip")]
        let capture = try P.file([
            P.captureLine(seq: 1, headers: headers, payload: #"{"aps":{"alert":"one"}}"#, settled: [("topic", "com.example.app.voip")]),
            P.captureLine(seq: 2, headers: headers, payload: "[1]", settled: [("topic", "com.example.app.voip")]),
            P.captureLine(seq: 3, headers: headers, payload: #"{"aps":{"alert":"three"}}"#, status: 400, reason: "BadDeviceToken",
                          settled: [("topic", "com.example.app.voip")]),
        ].joined(separator: "\n") + "\n")
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }

        let result = try await P.run(["export", "--apns", folder, capture])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "\(folder)/\(Self.apnsID).apns\n\(folder)/\(Self.apnsID)-3.apns\n", "\(result.stdout)")
        #expect(result.stderr.contains("warning: \(capture)#2: skipped: push 2's payload is not a JSON object"), "\(result.stderr)")
        let files = try Self.files(in: folder)
        #expect(files == [
            "\(Self.apnsID).apns": .object(["aps": .object(["alert": "one"]), "Simulator Target Bundle": "com.example.app"]),
            "\(Self.apnsID)-3.apns": .object(["aps": .object(["alert": "three"]), "Simulator Target Bundle": "com.example.app"]),
        ], "\(files)")

        let rejectedOnly = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: rejectedOnly) }
        let filtered = try await P.run(["export", "--apns", rejectedOnly, "--outcome", "BadDeviceToken", "--quiet", capture])
        #expect(filtered.status == 0 && filtered.stdout.isEmpty, "\(filtered.stderr)")
        #expect(try Self.files(in: rejectedOnly).keys.sorted() == ["\(Self.apnsID).apns"])
        #expect(try await P.run(["show", rejectedOnly + "/\(Self.apnsID).apns"]).stdout.contains("three"), "push-inspect reads it back")
    }

    /// `--help` and `help export` describe it; a missing `--apns` is a usage error and a
    /// folder that cannot be written an input error, both exit 2 before anything is written.
    @Test func helpAndErrors() async throws {
        let help = try await P.run(["export", "--help"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: push-inspect export --apns DIR"), "\(help.stdout)")
        #expect(try await P.run(["help", "export"]).stdout == help.stdout)
        #expect(try await P.run(["--help"]).stdout.contains("export "))

        let capture = try P.file(P.captureLine(seq: 1, headers: [("apns-topic", "com.example.app")], payload: "{}",
                                               settled: [("topic", "com.example.app")]) + "\n")
        defer { try? FileManager.default.removeItem(atPath: capture) }
        let missing = try await P.run(["export", capture])
        #expect(missing.status == 2 && missing.stderr.hasPrefix("Error: name the folder to write the .apns files into: --apns DIR"),
                "\(missing.stderr)")
        let notAFolder = try await P.run(["export", "--apns", capture, capture])
        #expect(notAFolder.status == 2 && notAFolder.stderr == "error: \(capture): not a folder; --apns names the folder the .apns files go into\n",
                "\(notAFolder.stderr)")
        let unwritable = try await P.run(["export", "--apns", "/proc/1/apns-export", capture])
        #expect(unwritable.status == 2 && unwritable.stderr.hasPrefix("error: /proc/1/apns-export: cannot make the folder"),
                "\(unwritable.stderr)")
        let payload = try P.file(#"{"aps":{"alert":"hi"}}"#, suffix: ".json")
        defer { try? FileManager.default.removeItem(atPath: payload) }
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let bare = try await P.run(["export", "--apns", folder, payload])
        #expect(bare.status == 2 && bare.stderr.contains("a bare payload has no captured push to take"), "\(bare.stderr)")
    }

    /// `--from` reads the pushes a live mock holds, filters applied by its control API.
    @Test func writesTheFilesOfALiveMocksPushes() async throws {
        let mock = try MockAPNsServer.startForTesting(certsDirectory: P.certs) { $0.server.tlsEnabled = false }
        defer { mock.stop() }
        let token = try MockAPNsServerTokens.make()
        let client = try PushInspectLiveMockTests.client(for: mock.sandboxURL, trust: nil)
        var sent: [String] = []
        for (index, topic) in ["com.example.app", "com.example.app.push-type.liveactivity"].enumerated() {
            let apnsID = UUID().uuidString
            let headers: HTTPHeaders = ["authorization": "bearer \(token)", "apns-topic": topic, "apns-id": apnsID,
                                        "apns-push-type": index == 0 ? "alert" : "liveactivity"]
            let body = index == 0 ? #"{"aps":{"alert":"hi"}}"# : #"{"aps":{"timestamp":1,"event":"update","content-state":{"n":1}}}"#
            let response = try await client.send(HTTPClientRequest(
                method: "POST", path: "/3/device/\(PushInspectLiveMockTests.device)", headers: headers, body: Array(body.utf8)))
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            sent.append(apnsID)
        }
        await client.close()
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try await P.run(["export", "--apns", folder, "--from", mock.controlURL, "--wait", "2", "--timeout", "10"])
        #expect(result.status == 0, "\(result.stderr)")
        let files = try Self.files(in: folder)
        #expect(files.keys.sorted() == sent.map { "\($0).apns" }.sorted())
        #expect(files["\(sent[1]).apns"] == .object([
            "aps": .object(["timestamp": 1, "event": "update", "content-state": .object(["n": 1])]),
            "Simulator Target Bundle": "com.example.app",
        ]))

        let filtered = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: filtered) }
        let one = try await P.run(["export", "--apns", filtered, "--from", mock.controlURL, "--push-type", "liveactivity"])
        let names = try Self.files(in: filtered).keys.sorted()
        #expect(one.status == 0 && names == ["\(sent[1]).apns"], "\(one.stderr)")
    }
}

/// A provider token of the test key.
enum MockAPNsServerTokens {
    static func make() throws -> String {
        let key = try ES256PrivateKey(contentsOfFile: "\(PushInspectProcess.certs)/AuthKey_ABC123DEFG.p8")
        return try JWTSigner(key: key, keyID: "ABC123DEFG").makeProviderToken(teamID: "TEAM000001", issuedAt: Date())
    }
}
