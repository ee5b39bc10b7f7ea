import APNsCore
import Foundation
import MockAPNs
import StrictJSON
import Testing

@testable import JWTVerify

/// Each lint code, on a push that is still accepted.
@Suite struct ValidationLintTests {
    let validator: PushValidator
    let token: String

    init() throws {
        validator = try ValidationFixtures.validator()
        token = try ValidationFixtures.providerToken()
    }

    /// Validates a push of `type` with `payload`, expects acceptance, returns the lints.
    func lints(
        _ payload: String, type: APNsPushType? = .alert, priority: String? = nil, change: (inout PushRequest) -> Void = { _ in },
        validator: PushValidator? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) -> [PushLintWarning] {
        var request = ValidationFixtures.request(token: token, payload: payload)
        request.set(APNsHeaderName.pushType, type?.rawValue)
        if let type { request.set(APNsHeaderName.topic, ValidationFixtures.bundleID + type.topicSuffix) }
        request.set(APNsHeaderName.priority, priority)
        change(&request)
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = (validator ?? self.validator).validate(request, auth: &auth)
        #expect(result.isAccepted, "\(result.message ?? "")", sourceLocation: sourceLocation)
        return result.details.lintWarnings
    }

    func codes(_ warnings: [PushLintWarning]) -> [String] { warnings.map(\.code) }

    @Test func aCleanPushHasNoLints() {
        #expect(lints(#"{"aps":{"alert":{"title":"t","body":"b"},"badge":1,"sound":"default"},"custom":1}"#).isEmpty)
        #expect(lints(#"{"aps":{"content-available":1}}"#, type: .background, priority: "5").isEmpty)
    }

    @Test func missingPushTypeIsInferredFromTheTopic() {
        let voip = lints(#"{"x":1}"#, type: nil) { $0.set(APNsHeaderName.topic, "\(ValidationFixtures.bundleID).voip") }
        #expect(codes(voip) == [PushLintCode.pushTypeMissing])
        #expect(voip.first?.message.contains("voip") == true)
    }

    @Test func missingPushTypeWithOnlyContentAvailableIsTreatedAsBackground() {
        var request = ValidationFixtures.request(token: token, payload: #"{"aps":{"content-available":1}}"#)
        request.set(APNsHeaderName.pushType, nil)
        request.set(APNsHeaderName.priority, "5")  // a background push's; 10 adds a lint (below)
        var auth = ConnectionAuthState(environment: .sandbox)
        let result = validator.validate(request, auth: &auth)
        #expect(result.isAccepted)
        #expect(result.details.pushType == .background)
        #expect(codes(result.details.lintWarnings) == [PushLintCode.pushTypeMissing])
    }

    @Test func pastExpirationIsAcceptedWithALint() {
        let past = String(Int(ValidationFixtures.start.timeIntervalSince1970) - 10)
        #expect(codes(lints(ValidationFixtures.alertPayload) { $0.set(APNsHeaderName.expiration, past) }) == [PushLintCode.expirationPast])
        #expect(lints(ValidationFixtures.alertPayload) { $0.set(APNsHeaderName.expiration, "0") }.isEmpty)
    }

    /// Apple documents a lowercase UUID; clients send both cases, so uppercase is accepted.
    @Test func uppercaseAPNsIDIsAcceptedWithALint() {
        let upper = "8A2F1E3C-0000-4000-8000-00000000ABCD"
        let warnings = lints(ValidationFixtures.alertPayload) { $0.set(APNsHeaderName.id, upper) }
        #expect(codes(warnings) == [PushLintCode.apnsIDUppercase])
        #expect(warnings.first?.path == APNsHeaderName.id)
        #expect(warnings.first?.message.contains("lowercase") == true)
        #expect(lints(ValidationFixtures.alertPayload) { $0.set(APNsHeaderName.id, upper.lowercased()) }.isEmpty)
    }

    @Test func unknownAPNsHeaderIsALint() {
        let warnings = lints(ValidationFixtures.alertPayload) { $0.set("apns-colapse-id", "x") }
        #expect(codes(warnings) == [PushLintCode.unknownAPNsHeader])
        #expect(warnings.first?.path == "apns-colapse-id")
    }

    @Test func backgroundAtPriority10IsALintWhenTheSettingsAcceptIt() throws {
        var settings = PushValidator.Settings()
        settings.rejectsImmediateBackgroundPushes = false
        let lenient = try ValidationFixtures.validator(settings: settings)
        #expect(codes(lints(#"{"aps":{"content-available":1}}"#, type: .background, priority: "10", validator: lenient))
            == [PushLintCode.backgroundPriority])
    }

    /// Apple documents priority 5 for background pushes and names no error for 1.
    @Test func backgroundAtPriority1IsAcceptedWithALint() {
        let background = #"{"aps":{"content-available":1}}"#
        let warnings = lints(background, type: .background, priority: "1")
        #expect(codes(warnings) == [PushLintCode.backgroundPriority1])
        #expect(warnings.first?.path == APNsHeaderName.priority)
        #expect(lints(background, type: .background, priority: "5").isEmpty)
        // Priority 1 is documented for other push types.
        #expect(lints(ValidationFixtures.alertPayload, priority: "1").isEmpty)
    }

    /// Without `apns-push-type`, a content-available-only push is inferred `background`: at
    /// priority 10 (or absent) or 1 it is accepted, since the type is the mock's guess, but
    /// lints as push-inspect's `apple.background-priority` flags it.
    @Test func anInferredBackgroundPushAtPriority10Or1IsALint() {
        let background = #"{"aps":{"content-available":1}}"#
        for (priority, code) in [("10", PushLintCode.backgroundPriority), (nil, PushLintCode.backgroundPriority),
                                 ("1", PushLintCode.backgroundPriority1)] {
            let warnings = lints(background, type: nil, priority: priority)
            #expect(codes(warnings) == [PushLintCode.pushTypeMissing, code], "priority \(priority ?? "absent")")
            #expect(warnings.last?.message.hasPrefix("without apns-push-type") == true)
        }
        #expect(codes(lints(background, type: nil, priority: "5")) == [PushLintCode.pushTypeMissing])
        #expect(codes(lints(#"{"aps":{"content-available":1,"badge":1}}"#, type: nil, priority: "10"))
            == [PushLintCode.pushTypeMissing], "a badge to show: an alert push")
    }

    /// Apple documents priority 5 or 10 for Live Activities and names no error for 1.
    @Test func liveActivityAtPriority1IsALint() {
        let update = #"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"score":1}}}"#
        let warnings = lints(update, type: .liveactivity, priority: "1")
        #expect(codes(warnings) == [PushLintCode.liveActivityPriority])
        #expect(warnings.first?.path == "apns-priority")
        #expect(lints(update, type: .liveactivity, priority: "5").isEmpty)
        #expect(lints(update, type: .liveactivity, priority: "10").isEmpty)
        #expect(lints(ValidationFixtures.alertPayload, priority: "1").isEmpty)
    }

    @Test func authorizationOnACertificateConnectionIsALint() throws {
        // Covered end to end in ValidationAuthTests; here the code's spelling.
        #expect(PushLintCode.authorizationIgnored == "header.authorization-ignored")
    }

    @Test(arguments: [
        (["iss": "DEF123GHIJ", "iat": "1800000000"], PushLintCode.tokenIssuedAtString),
        (["iss": "DEF123GHIJ", "iat": 1_799_999_999.5], PushLintCode.tokenIssuedAtFractional),
        (["iss": "DEF123GHIJ", "iat": 1_800_000_030], PushLintCode.tokenIssuedAtFuture),
        (["iss": "DEF123GHIJ", "iat": 1_800_000_000, "aud": "x"], PushLintCode.tokenUnexpectedClaim),
    ] as [([String: JSONValue], String)])
    func tokenOdditiesAreLints(claims: [String: JSONValue], code: String) throws {
        let token = try ValidationFixtures.providerToken(claims: claims)
        #expect(codes(lints(ValidationFixtures.alertPayload) { $0.set(APNsHeaderName.authorization, "bearer \(token)") }) == [code])
    }

    @Test func typHeaderIsALint() throws {
        let token = try ValidationFixtures.providerToken(includesType: true)
        #expect(codes(lints(ValidationFixtures.alertPayload) { $0.set(APNsHeaderName.authorization, "bearer \(token)") })
            == [PushLintCode.tokenTypeHeader])
    }

    @Test func everyJWTVerifyLintKindHasAPushLintCode() {
        let expected: [(APNsTokenLintWarning.Kind, String)] = [
            (.issuedAtIsString, PushLintCode.tokenIssuedAtString), (.issuedAtIsFractional, PushLintCode.tokenIssuedAtFractional),
            (.issuedAtInFuture, PushLintCode.tokenIssuedAtFuture), (.typeHeaderPresent, PushLintCode.tokenTypeHeader),
            (.unexpectedHeaderField, PushLintCode.tokenUnexpectedHeader), (.unexpectedClaim, PushLintCode.tokenUnexpectedClaim),
        ]
        for (kind, code) in expected {
            let lint = PushLintWarning(APNsTokenLintWarning(kind: kind, message: "m"))
            #expect(lint.code == code && lint.message == "m")
        }
    }

    @Test func notJSONAndNotObjectAreLintsWhenTheSettingsAcceptThem() throws {
        var settings = PushValidator.Settings()
        settings.rejectsMalformedPayloads = false
        let lenient = try ValidationFixtures.validator(settings: settings)
        #expect(codes(lints("hello", validator: lenient)) == [PushLintCode.payloadNotJSON])
        #expect(codes(lints("[1]", validator: lenient)) == [PushLintCode.payloadNotObject])
    }

    @Test func missingApsIsALintForTypesThatNeedIt() {
        let missing = lints(#"{"x":1}"#)
        #expect(codes(missing) == [PushLintCode.apsMissing])
        #expect(missing.first?.message.hasPrefix("an alert push needs an aps dictionary") == true, "\(missing)")
        #expect(lints(#"{"x":1}"#, type: .liveactivity).first?.message.hasPrefix("a liveactivity push needs") == true)
        // A wallet-pass style `{}` to a VoIP topic needs no aps.
        #expect(lints("{}", type: .voip).isEmpty)
    }

    @Test func apsThatIsNotAnObjectIsALint() {
        #expect(codes(lints(#"{"aps":"alert"}"#)) == [PushLintCode.apsNotObject])
    }

    @Test func unknownKeysInApsAndAlertAreLints() {
        let warnings = lints(#"{"aps":{"alert":{"body":"b","bodyy":"x"},"bagde":1,"sound":"default"}}"#)
        #expect(codes(warnings) == [PushLintCode.apsUnknownKey, PushLintCode.apsUnknownKey])
        #expect(Set(warnings.compactMap(\.path)) == ["aps.bagde", "aps.alert.bodyy"])
    }

    @Test(arguments: [#""1""#, "1.5", "true"])
    func badgeThatIsNotAWholeNumberIsALint(badge: String) {
        let warnings = lints(#"{"aps":{"alert":"a","badge":\#(badge)}}"#)
        #expect(codes(warnings) == [PushLintCode.apsBadgeType])
        #expect(warnings.first?.path == "aps.badge")
    }

    @Test(arguments: [
        #"{"aps":{"alert":1}}"#, #"{"aps":{"alert":"a","sound":1}}"#, #"{"aps":{"alert":"a","thread-id":1}}"#,
        #"{"aps":{"alert":"a","mutable-content":"1"}}"#, #"{"aps":{"alert":"a","relevance-score":"high"}}"#,
        #"{"aps":{"alert":"a","interruption-level":2}}"#,
    ])
    func knownKeysOfTheWrongTypeAreLints(payload: String) {
        #expect(codes(lints(payload)) == [PushLintCode.apsFieldType])
    }

    @Test(arguments: [
        #"{"aps":{"alert":"a","badge":-1}}"#, #"{"aps":{"alert":"a","mutable-content":0}}"#,
        #"{"aps":{"alert":"a","interruption-level":"urgent"}}"#, #"{"aps":{"alert":"a","relevance-score":2}}"#,
    ])
    func knownKeysWithUndefinedValuesAreLints(payload: String) {
        #expect(codes(lints(payload)) == [PushLintCode.apsFieldValue])
    }

    @Test func aCriticalAlertSoundDictionaryIsCheckedKeyByKey() {
        let critical = #"{"aps":{"alert":"a","sound":{"critical":1,"name":"siren.caf","volume":0.5}}}"#
        #expect(lints(critical).isEmpty)
        #expect(lints(#"{"aps":{"alert":"a","sound":{"critical":0,"name":"default","volume":1}}}"#).isEmpty)

        let unknown = lints(#"{"aps":{"alert":"a","sound":{"critical":1,"nmae":"siren.caf","loud":true}}}"#)
        #expect(codes(unknown) == [PushLintCode.apsUnknownKey, PushLintCode.apsUnknownKey])
        #expect(unknown.map(\.path) == ["aps.sound.loud", "aps.sound.nmae"])

        let values = lints(#"{"aps":{"alert":"a","sound":{"critical":2,"name":"siren.caf","volume":1.5}}}"#)
        #expect(codes(values) == [PushLintCode.apsFieldValue, PushLintCode.apsFieldValue])
        #expect(values.map(\.path) == ["aps.sound.critical", "aps.sound.volume"])
        #expect(codes(lints(#"{"aps":{"alert":"a","sound":{"critical":1,"volume":-0.1}}}"#)) == [PushLintCode.apsFieldValue])

        let types = lints(#"{"aps":{"alert":"a","sound":{"critical":true,"name":1,"volume":"max"}}}"#)
        #expect(codes(types) == [PushLintCode.apsFieldType, PushLintCode.apsFieldType, PushLintCode.apsFieldType])
        #expect(types.map(\.path) == ["aps.sound.critical", "aps.sound.name", "aps.sound.volume"])
    }

    @Test func alertPushWithNothingToShowIsALint() {
        #expect(codes(lints(#"{"aps":{"category":"c"}}"#)) == [PushLintCode.apsAlertNothingToShow])
        #expect(lints(#"{"aps":{"badge":0}}"#).isEmpty)
    }

    @Test func backgroundPushWithAlertSoundOrBadgeIsALint() {
        let warnings = lints(#"{"aps":{"content-available":1,"alert":"a","badge":1}}"#, type: .background, priority: "5")
        #expect(codes(warnings) == [PushLintCode.apsBackgroundHasAlert, PushLintCode.apsBackgroundHasAlert])
        #expect(warnings.map(\.path) == ["aps.alert", "aps.badge"])
    }

    @Test func backgroundPushWithoutContentAvailableIsALint() {
        #expect(codes(lints(#"{"aps":{}}"#, type: .background, priority: "5")) == [PushLintCode.apsBackgroundMissingContentAvailable])
    }

    @Test func liveActivityPushesNeedEventTimestampAndContentState() {
        #expect(lints(#"{"aps":{"event":"update","timestamp":1800000000,"content-state":{"score":1}}}"#, type: .liveactivity).isEmpty)
        let warnings = lints(#"{"aps":{"event":"update"}}"#, type: .liveactivity)
        #expect(codes(warnings) == [PushLintCode.apsLiveActivityMissingField, PushLintCode.apsLiveActivityMissingField])
        #expect(warnings.map(\.path) == ["aps.timestamp", "aps.content-state"])
    }

    @Test func liveActivityStartNeedsAttributesAndAlert() {
        let start = #"{"aps":{"event":"start","timestamp":1800000000,"content-state":{},"attributes-type":"T","attributes":{},"alert":{"title":"t","body":"b","sound":"s"}}}"#
        #expect(lints(start, type: .liveactivity).isEmpty)
        let bare = lints(#"{"aps":{"event":"start","timestamp":1800000000,"content-state":{}}}"#, type: .liveactivity)
        #expect(bare.map(\.path) == ["aps.attributes-type", "aps.attributes", "aps.alert"])
        #expect(codes(lints(#"{"aps":{"event":"begin","timestamp":1,"content-state":{}}}"#, type: .liveactivity)) == [PushLintCode.apsFieldValue])
    }

    @Test func everyLintCodeIsDistinctAndNamespaced() {
        let all = [
            PushLintCode.pushTypeMissing, PushLintCode.expirationPast, PushLintCode.unknownAPNsHeader, PushLintCode.authorizationIgnored,
            PushLintCode.backgroundPriority, PushLintCode.liveActivityPriority, PushLintCode.tokenIssuedAtString, PushLintCode.tokenIssuedAtFractional,
            PushLintCode.tokenIssuedAtFuture, PushLintCode.tokenTypeHeader, PushLintCode.tokenUnexpectedHeader,
            PushLintCode.tokenUnexpectedClaim, PushLintCode.payloadNotJSON, PushLintCode.payloadNotObject, PushLintCode.apsMissing,
            PushLintCode.apsNotObject, PushLintCode.apsUnknownKey, PushLintCode.apsBadgeType, PushLintCode.apsFieldType,
            PushLintCode.apsFieldValue, PushLintCode.apsAlertNothingToShow, PushLintCode.apsBackgroundHasAlert,
            PushLintCode.apsBackgroundMissingContentAvailable, PushLintCode.apsLiveActivityMissingField,
            PushLintCode.apsLiveActivityDateUnit, PushLintCode.apsLiveActivityInputPush, PushLintCode.broadcastStartEvent,
        ]
        #expect(Set(all).count == all.count)
        #expect(all.allSatisfy { ["header.", "token.", "payload.", "aps."].contains(where: $0.hasPrefix) })
    }
}
