import HermesContract
import Testing

@Suite struct HermesNotificationTests {
    @Test func approvalPayloadIsExactlyTheContractsExample() {
        let payload = HermesNotification(type: .approval, sessionID: "sess-1").payload()
        let expected = #"{"aps":{"alert":{"title":"Approval needed","body":"Hermes needs your approval"},"sound":"default","thread-id":"sess-1","category":"HERMES_APPROVAL","badge":1},"session_id":"sess-1","type":"approval"}"#
        #expect(String(decoding: payload, as: UTF8.self) == expected)
    }

    @Test(arguments: [HermesPushType.clarify, .complete, .error])
    func otherTypesCarryNoBadgeAndTheirOwnCopy(type: HermesPushType) {
        let text = String(decoding: HermesNotification(type: type, sessionID: "s").payload(), as: UTF8.self)
        #expect(!text.contains("badge"))
        #expect(text.contains(#""title":"\#(type.title)","body":"\#(type.body)""#))
        #expect(text.contains(#""category":"HERMES_\#(type.rawValue.uppercased())""#))
    }

    @Test(arguments: HermesPushType.allCases)
    func payloadParsesBackToTheSameNotification(type: HermesPushType) {
        let notification = HermesNotification(type: type, sessionID: "20261130_a1")
        #expect(HermesNotification(payload: notification.payload()) == notification)
    }

    @Test func parsingIgnoresPushesThatAreNotHermes() {
        #expect(HermesNotification(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)) == nil)
        #expect(HermesNotification(payload: Array(#"{"aps":{},"type":"approval","session_id":"../x"}"#.utf8)) == nil)
        #expect(HermesNotification(payload: Array("not json".utf8)) == nil)
    }

    @Test func collapseIDFitsAPNsLimitAndKeepsLongSessionsApart() {
        #expect(HermesCollapseID.make(type: .approval, sessionID: "sess-1") == "approval:sess-1")
        let long1 = String(repeating: "a", count: 100) + "1"
        let long2 = String(repeating: "a", count: 100) + "2"
        let first = HermesCollapseID.make(type: .complete, sessionID: long1)
        #expect(first.utf8.count <= 64)
        #expect(first != HermesCollapseID.make(type: .complete, sessionID: long2))
    }

    @Test func sessionIDPattern() {
        #expect(HermesSessionID.isValid("20261130_154126_a1b2c3"))
        #expect(HermesSessionID.isValid("a:b.c-d"))
        for bad in ["", "-a", "a b", "a/b", "é", String(repeating: "a", count: 129), "$(id)"] {
            #expect(!HermesSessionID.isValid(bad), "\(bad)")
        }
    }

    @Test func categoriesAndExpirations() {
        #expect(HermesPushType(category: "HERMES_CLARIFY") == .clarify)
        #expect(HermesPushType(category: "HERMES_OTHER") == nil)
        #expect(HermesNotification(type: .approval, sessionID: "s").expiration(sentAt: 1_000) == 4_600)
        #expect(HermesGatewayErrorCode.invalidCapability.status == 403)
        let statuses = Dictionary(uniqueKeysWithValues: HermesGatewayErrorCode.allCases.map { ($0.rawValue, $0.status) })
        #expect(statuses == ["invalid_request": 400, "device_token_rejected": 400, "invalid_capability": 403,
                             "invalid_hmac": 403, "auth_mode_disabled": 403, "missing_authorization": 403,
                             "device_token_inactive": 410, "rate_limited": 429, "apns_rejected": 502,
                             "apns_unavailable": 503, "not_found": 404, "method_not_allowed": 405, "body_too_large": 413,
                             "headers_too_large": 431, "request_timeout": 408, "http_version_not_supported": 505])
        #expect(String(decoding: HermesGatewayErrorCode.invalidCapability.body(message: "m"), as: UTF8.self) == #"{"error":"invalid_capability","message":"m"}"#)
    }
}
