import APNsCore
import JWTVerify
@testable import APNsCapture
import Testing

/// The values the encoder copies without escaping: every one it can meet must be plain.
struct CapturePlainValueTests {
    private func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }

    @Test func enumValuesAndDeviceTokensNeedNoEscaping() throws {
        for environment in APNsEnvironment.allCases { #expect(isPlain(environment.rawValue)) }
        for pushType in APNsPushType.allCases { #expect(isPlain(pushType.rawValue)) }
        for action in [PushOutcome.ConnectionAction.none, .goAway, .close] {
            #expect(isPlain(CaptureRecordEncoder.connectionActionValue(action)))
        }
        let token = try #require(DeviceToken("ABCDEF0123456789"))
        #expect(isPlain(token.hex))
    }
}
