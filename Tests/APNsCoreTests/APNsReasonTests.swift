import APNsCore
import Testing

@Suite struct APNsReasonTests {
    /// Apple's table, spelled out independently of the implementation's own table.
    static let apple: [(String, Int)] = [
        ("BadCollapseId", 400), ("BadDeviceToken", 400), ("BadExpirationDate", 400), ("BadMessageId", 400),
        ("BadPriority", 400), ("BadTopic", 400), ("DeviceTokenNotForTopic", 400), ("DuplicateHeaders", 400),
        ("IdleTimeout", 400), ("InvalidPushType", 400), ("MissingDeviceToken", 400), ("MissingTopic", 400),
        ("PayloadEmpty", 400), ("TopicDisallowed", 400), ("BadCertificate", 403), ("BadCertificateEnvironment", 403),
        ("ExpiredProviderToken", 403), ("Forbidden", 403), ("InvalidProviderToken", 403), ("MissingProviderToken", 403),
        ("UnrelatedKeyIdInToken", 403), ("BadEnvironmentKeyIdInToken", 403), ("BadPath", 404),
        ("MethodNotAllowed", 405), ("ExpiredToken", 410), ("Unregistered", 410), ("PayloadTooLarge", 413),
        ("TooManyProviderTokenUpdates", 429), ("TooManyRequests", 429), ("InternalServerError", 500),
        ("ServiceUnavailable", 503), ("Shutdown", 503),
        // The broadcast and channel management APIs' own reasons.
        ("FeatureNotEnabled", 400), ("MissingChannelId", 400), ("BadChannelId", 400), ("ChannelNotRegistered", 400),
        ("BadRequestParams", 400), ("BadRequestPayload", 400), ("MissingPushType", 400),
        ("CannotCreateChannelConfig", 400), ("TopicMismatch", 403),
    ]

    @Test func everyAppleReasonRoundTripsWithItsStatus() {
        #expect(APNsReason.allKnown.count == 41)
        for (wire, status) in Self.apple {
            let reason = APNsReason(wireValue: wire)
            #expect(reason != .unknown(wire), "\(wire) should be known")
            #expect(reason.wireValue == wire)
            #expect(reason.status == status, "\(wire)")
        }
        #expect(Set(APNsReason.allKnown.map(\.wireValue)) == Set(Self.apple.map(\.0)))
    }

    @Test func unknownReasonsSurviveVerbatim() {
        let reason = APNsReason(wireValue: "BadEnvironmentKeyInToken")
        #expect(reason == .unknown("BadEnvironmentKeyInToken"))
        #expect(reason.wireValue == "BadEnvironmentKeyInToken")
        #expect(reason.status == nil)
    }

    @Test func onlyServerErrorsAndRateLimitsAreRetryable() {
        let retryable = APNsReason.allKnown.filter(\.isRetryable).map(\.wireValue)
        #expect(Set(retryable) == ["TooManyRequests", "InternalServerError", "ServiceUnavailable", "Shutdown"])
        #expect(APNsReason.unregistered.isGone && APNsReason.expiredToken.isGone && !APNsReason.badDeviceToken.isGone)
    }

    @Test func errorBodyMatchesApple() {
        #expect(String(decoding: APNsErrorResponse(reason: .badDeviceToken).jsonBytes, as: UTF8.self)
                == #"{"reason":"BadDeviceToken"}"#)
        #expect(String(decoding: APNsErrorResponse(reason: .unregistered, timestamp: 1_700_000_000_123).jsonBytes, as: UTF8.self)
                == #"{"reason":"Unregistered","timestamp":1700000000123}"#)
        #expect(String(decoding: APNsErrorResponse(reason: .unknown("a\"b")).jsonBytes, as: UTF8.self)
                == #"{"reason":"a\"b"}"#)
    }
}
