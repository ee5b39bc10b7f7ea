import HermesApp
import HermesContract
import Testing

@Suite struct HermesNotificationHandlerTests {
    private func payload(_ type: HermesPushType, _ session: String) -> [UInt8] {
        HermesNotification(type: type, sessionID: session).payload()
    }

    @Test(arguments: HermesPushType.allCases)
    func aGatewayPayloadParsesIntoATypedNotificationWithItsRoute(type: HermesPushType) async throws {
        let handler = HermesNotificationHandler()
        let outcome = try #require(await handler.receive(payload: payload(type, "20261130_a1")))
        #expect(outcome.notification.type == type)
        #expect(outcome.notification.sessionID == "20261130_a1")
        #expect(outcome.tapRoute == .session("20261130_a1"))
    }

    @Test func theBannerIsSuppressedOnlyForTheViewedSessionInTheForeground() async throws {
        let handler = HermesNotificationHandler()
        await handler.setForeground(true)
        await handler.setViewing(sessionID: "s1")
        #expect(await handler.receive(payload: payload(.complete, "s1"))?.presentation == .suppressedViewingSession)
        #expect(await handler.receive(payload: payload(.complete, "s2"))?.presentation == .banner)
        await handler.setViewing(sessionID: nil)
        #expect(await handler.receive(payload: payload(.complete, "s1"))?.presentation == .banner)
        await handler.setViewing(sessionID: "s1")
        await handler.setForeground(false)
        #expect(await handler.receive(payload: payload(.complete, "s1"))?.presentation == .system,
                "in the background the OS shows it")
    }

    @Test func approvalsDriveTheBadgeAndAnsweringClearsIt() async throws {
        let handler = HermesNotificationHandler()
        #expect(await handler.receive(payload: payload(.approval, "s1"))?.badge == 1)
        #expect(await handler.receive(payload: payload(.approval, "s1"))?.badge == 1, "one pending approval per session")
        #expect(await handler.receive(payload: payload(.approval, "s2"))?.badge == 2)
        #expect(await handler.receive(payload: payload(.complete, "s3"))?.badge == 2, "other types leave the badge alone")
        #expect(await handler.approvalAnswered(sessionID: "s1") == 1)
        #expect(await handler.approvalAnswered(sessionID: "s2") == 0)
        #expect(await handler.badge == 0)
    }

    @Test func aTapRoutesToTheSessionAndMakesItTheViewedOne() async throws {
        let handler = HermesNotificationHandler()
        #expect(await handler.tap(payload: payload(.clarify, "sess-9")) == .session("sess-9"))
        #expect(await handler.viewingSessionID == "sess-9")
        #expect(await handler.receive(payload: payload(.complete, "sess-9"))?.presentation == .suppressedViewingSession)
    }

    @Test func aPayloadThatIsNotHermesIsIgnored() async {
        let handler = HermesNotificationHandler()
        #expect(await handler.receive(payload: Array(#"{"aps":{"alert":"hi"}}"#.utf8)) == nil)
        #expect(await handler.tap(payload: Array("{".utf8)) == nil)
        #expect(await handler.badge == 0)
    }
}
