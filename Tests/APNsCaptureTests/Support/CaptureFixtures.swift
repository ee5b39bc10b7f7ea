import APNsCapture
import APNsCore
import Foundation
import StrictJSON

/// Records and files shared by the capture tests.
enum CaptureFixtures {
    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let otherToken = DeviceToken(String(repeating: "cd", count: 32))!
    static let bearerToken = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJERUYxMjNHSElKIn0.SIGnatureSecretXq3vN0tReally-ASignature"
    static let receivedAt = Date(timeIntervalSince1970: 1_795_958_793.123456)

    /// The headers of a push to `topic`, with an `authorization` that the list refuses and
    /// a repeated header with text that needs escaping.
    static func headers(topic: String = "com.example.app") -> CaptureHeaders {
        [
            "apns-topic": topic, "Authorization": "bearer \(bearerToken)", "apns-push-type": "alert",
            "apns-priority": "10", "x-dup": "1", "x-dup": "2\n\"quoted\"",
        ]
    }

    /// A rejection as the mock answers it.
    static func rejected(
        _ reason: APNsReason, status: Int, apnsID: String, timestamp: Int64? = nil,
        connectionAction: PushOutcome.ConnectionAction = .none
    ) -> PushOutcome {
        PushOutcome(status: status, reason: reason, apnsID: apnsID, uniqueID: nil, timestamp: timestamp,
                    connectionAction: connectionAction)
    }

    /// A record with only what every record has, for `body`.
    static func minimalRecord(body: [UInt8], outcome: PushOutcome = .accepted(apnsID: "A", uniqueID: nil)) -> CaptureRecord {
        CaptureRecord(
            receivedAtMicroseconds: CaptureRecord.microseconds(since1970: receivedAt), environment: .sandbox,
            connectionID: 42, method: "POST", path: "/3/device/\(token.hex)", headers: headers(), payload: body,
            outcome: outcome)
    }

    /// A fully populated record: every optional field set, escapes and non-ASCII text.
    static func fullRecord(
        token: DeviceToken = token, topic: String = "com.example.app", accepted: Bool = true,
        apnsID: String = "8A2F1E3C-0000-4000-8000-00000000ABCD", receivedAt: Date = receivedAt
    ) -> CaptureRecord {
        let body = Array(#"{"aps":{"alert":"héllo \u0001 \"😀\"","badge":1.5},"n":[1,-2,null,true]}"#.utf8)
        let outcome: PushOutcome = accepted
            ? .accepted(apnsID: apnsID, uniqueID: "unique-1")
            : rejected(.unregistered, status: 410, apnsID: apnsID, timestamp: 1_795_958_000_000, connectionAction: .goAway)
        return CaptureRecord(
            receivedAtMicroseconds: CaptureRecord.microseconds(since1970: receivedAt), environment: .sandbox,
            connectionID: 42, method: "POST", path: "/3/device/\(token.hex)", headers: headers(topic: topic),
            token: CaptureTokenInfo(
                header: ["alg": "ES256", "kid": "ABC123DEFG"], claims: ["iss": "DEF123GHIJ", "iat": 1_795_958_793],
                fingerprint: "0123456789abcdef"),
            deviceToken: token, topic: topic, pushType: .alert, priority: .immediately, expiration: 1_795_962_393,
            collapseID: "group-1", teamID: "DEF123GHIJ", keyID: "ABC123DEFG", payload: body, outcome: outcome,
            lintWarnings: [
                PushLintWarning(code: "aps.unknown-key", message: "“sound2” is not an aps key", path: "aps.sound2"),
                PushLintWarning(code: "token.iat-string", message: "iat is a string"),
            ],
            faults: ["delay-500ms", "fault#3"])
    }

    static func temporaryPath(_ name: String = #function) -> String {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        return FileManager.default.temporaryDirectory
            .appendingPathComponent("capture-\(safe)-\(UUID().uuidString).jsonl").path
    }
}
