import APNsCore
import Foundation
import HTTPTransport
import MockAPNs
import Synchronization
import Testing

/// Returns the given numbers in turn, then repeats the last one.
func sequenceRandom(_ values: [Double]) -> FaultRandomSource {
    let index = Mutex(0)
    return FaultRandomSource {
        index.withLock { position in
            defer { position += 1 }
            return values[min(position, values.count - 1)]
        }
    }
}

@Suite struct FaultEngineTests {
    static let token = DeviceToken(String(repeating: "ab", count: 32))!
    static let otherToken = DeviceToken(String(repeating: "cd", count: 32))!
    static let topic = "com.example.app"
    static let start = Date(timeIntervalSince1970: 1_700_000_000)

    func push(_ engine: FaultEngine, token: DeviceToken = token, topic: String? = topic,
              type: APNsPushType? = .alert, at time: Date = start) -> FaultDecision {
        engine.evaluate(deviceToken: token, topic: topic, pushType: type, at: time)
    }

    func engine(_ actions: FaultAction...) throws -> FaultEngine {
        try FaultEngine(rules: actions.enumerated().map { FaultRule(id: "r\($0.offset)", action: $0.element) })
    }

    @Test func noRulesDecidesNothing() throws {
        let engine = try FaultEngine()
        #expect(push(engine) == .none)
        #expect(push(engine).isNone)
    }

    @Test func statusRuleAnswersWithItsStatusAndReason() throws {
        let decision = push(try engine(.status(500, reason: .internalServerError)))
        #expect(decision.response == .status(500, reason: .internalServerError, timestamp: nil))
        #expect(decision.connectionAction == nil && decision.delay == .zero)
        #expect(decision.firedRules == [.init(id: "r0", summary: "status 500 InternalServerError")])
    }

    @Test func a410StatusCarriesTheTimeItFired() throws {
        let decision = push(try engine(.status(410, reason: .unregistered)), at: Date(timeIntervalSince1970: 1_700_000_000.5))
        #expect(decision.response == .status(410, reason: .unregistered, timestamp: 1_700_000_000_500))
    }

    @Test func delayRuleReturnsTheDelayAndLeavesTheAnswerAlone() throws {
        let decision = push(try engine(.delay(.milliseconds(250))))
        #expect(decision.delay == .milliseconds(250))
        #expect(decision.response == nil && decision.connectionAction == nil)
        #expect(decision.firedRules.map(\.id) == ["r0"])
    }

    @Test func resetStreamRuleResetsWithItsErrorCode() throws {
        #expect(push(try engine(.resetStream(.refusedStream))).response == .resetStream(.refusedStream))
    }

    @Test func closeConnectionRuleClosesAndStopsEvaluation() throws {
        let decision = push(try engine(.closeConnection, .status(500, reason: .internalServerError)))
        #expect(decision.connectionAction == .close)
        #expect(decision.response == nil)
        #expect(decision.firedRules.map(\.id) == ["r0"])
    }

    @Test func goAwayRuleCarriesTheReasonAsDebugData() throws {
        let decision = push(try engine(.goAway(errorCode: .noError, reason: .shutdown)))
        #expect(decision.connectionAction == .goAway(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8)))
        #expect(decision.response == nil)
        let bare = push(try engine(.goAway(errorCode: .enhanceYourCalm, reason: nil)))
        #expect(bare.connectionAction == .goAway(errorCode: .enhanceYourCalm, debugData: []))
    }

    @Test func rulesCombineDelayAnswerAndConnectionAction() throws {
        let engine = try engine(
            .delay(.milliseconds(100)), .status(403, reason: .forbidden), .delay(.milliseconds(50)),
            .status(500, reason: .internalServerError), .goAway(errorCode: .noError, reason: .forbidden))
        let decision = push(engine)
        #expect(decision.delay == .milliseconds(150))
        #expect(decision.response == .status(403, reason: .forbidden, timestamp: nil))
        #expect(decision.connectionAction == .goAway(errorCode: .noError, debugData: Array(#"{"reason":"Forbidden"}"#.utf8)))
        // The second status rule was skipped, not fired.
        #expect(decision.firedRules.map(\.id) == ["r0", "r1", "r2", "r4"])
        #expect(engine.statistics.first { $0.id == "r3" }?.fired == 0)
    }

    @Test func unavailableAnswersEveryPushBeforeOtherRules() throws {
        let engine = try FaultEngine(rules: [
            FaultRule(id: "first", action: .status(500, reason: .internalServerError)),
            FaultRule(id: "down", action: .unavailable(.shutdown)),
        ])
        for (token, topic, type) in [(Self.token, Self.topic, APNsPushType.alert), (Self.otherToken, "other.app.voip", .voip)] {
            let decision = push(engine, token: token, topic: topic, type: type)
            #expect(decision.response == .status(503, reason: .shutdown, timestamp: nil))
            #expect(decision.firedRules.map(\.id) == ["down"])
        }
        #expect(engine.evaluate(deviceToken: nil, topic: nil, pushType: nil).response
            == .status(503, reason: .shutdown, timestamp: nil))
        #expect(engine.remove(id: "down") != nil)
        #expect(push(engine).response == .status(500, reason: .internalServerError, timestamp: nil))
    }

    @Test func matchesByTokenTopicAndPushType() throws {
        let engine = try FaultEngine(rules: [
            FaultRule(id: "token", match: FaultMatch(deviceToken: Self.otherToken), action: .status(400, reason: .badDeviceToken)),
            FaultRule(id: "topic", match: FaultMatch(topic: "com.example.app.voip"), action: .status(400, reason: .badTopic)),
            FaultRule(id: "type", match: FaultMatch(pushType: .background), action: .status(400, reason: .badPriority)),
        ])
        #expect(push(engine).isNone)
        #expect(push(engine, token: Self.otherToken).firedRules.map(\.id) == ["token"])
        #expect(push(engine, topic: "com.example.app.voip", type: .voip).firedRules.map(\.id) == ["topic"])
        #expect(push(engine, type: .background).firedRules.map(\.id) == ["type"])
        // A push that lacks the attribute does not match.
        #expect(push(engine, topic: nil, type: nil).isNone)
    }

    @Test func probabilityUsesTheInjectedRandomSource() throws {
        let engine = try FaultEngine(
            rules: [FaultRule(id: "flaky", probability: 0.5, action: .status(500, reason: .internalServerError))],
            random: sequenceRandom([0.1, 0.7, 0.49, 0.5, 0.99]))
        let fired = (0..<5).map { _ in !push(engine).isNone }
        #expect(fired == [true, false, true, false, false])
        #expect(engine.statistics == [FaultRuleStatistics(id: "flaky", fired: 2, remaining: nil)])
    }

    @Test func probabilityZeroNeverFiresAndOneAlwaysDoes() throws {
        let never = try FaultEngine(rules: [FaultRule(id: "never", probability: 0, action: .closeConnection)], random: sequenceRandom([0]))
        let always = try FaultEngine(rules: [FaultRule(id: "always", probability: 1, action: .closeConnection)], random: sequenceRandom([0.999]))
        for _ in 0..<10 {
            #expect(push(never).isNone)
            #expect(push(always).connectionAction == .close)
        }
    }

    @Test func countExhaustsAfterNFirings() throws {
        let engine = try FaultEngine(rules: [FaultRule(id: "three", count: 3, action: .resetStream(.cancel))])
        let fired = (0..<6).map { _ in push(engine).response != nil }
        #expect(fired == [true, true, true, false, false, false])
        #expect(engine.statistics == [FaultRuleStatistics(id: "three", fired: 3, remaining: 0)])
        // A spent rule stays listed so the control API can show that it fired.
        #expect(engine.rules.map(\.id) == ["three"])
    }

    @Test func countAndProbabilityTogetherCountFiringsNotMatches() throws {
        let engine = try FaultEngine(
            rules: [FaultRule(id: "both", probability: 0.5, count: 2, action: .status(500, reason: .internalServerError))],
            random: sequenceRandom([0.9, 0.1, 0.9, 0.9, 0.2, 0.1, 0.1]))
        let fired = (0..<7).map { _ in !push(engine).isNone }
        #expect(fired == [false, true, false, false, true, false, false])
    }

    @Test func slidingRateLimitAnswersTooManyRequestsPerToken() throws {
        let engine = try engine(.rateLimit(FaultRateLimit(limit: 3, window: .seconds(10), kind: .sliding)))
        func at(_ seconds: Double, _ token: DeviceToken = Self.token) -> Bool {
            push(engine, token: token, at: Self.start.addingTimeInterval(seconds)).response
                == .status(429, reason: .tooManyRequests, timestamp: nil)
        }
        #expect([at(0), at(1), at(2)] == [false, false, false])
        #expect(at(3))
        #expect(!at(3, Self.otherToken))  // another token has its own window
        #expect(at(9.9))
        // The push at 0 leaves the window at 10: one slot frees up, then it is full again.
        #expect(!at(10))
        #expect(at(10.5))
        // Rejected pushes do not count: by 12 the pushes at 1 and 2 have left too.
        #expect([at(12.1), at(12.2), at(12.3)] == [false, false, true])
    }

    @Test func fixedRateLimitResetsAtTheWindowEnd() throws {
        let engine = try engine(.rateLimit(FaultRateLimit(limit: 2, window: .seconds(10), kind: .fixed)))
        func limited(_ seconds: Double) -> Bool {
            push(engine, at: Self.start.addingTimeInterval(seconds)).response != nil
        }
        // The window opens at the first push (5) and runs to 15.
        #expect([limited(5), limited(6), limited(7), limited(14.9)] == [false, false, true, true])
        #expect([limited(15), limited(15.1), limited(15.2)] == [false, false, true])
    }

    @Test func rateLimitWithCountStopsLimitingWhenSpent() throws {
        let engine = try FaultEngine(rules: [
            FaultRule(id: "rl", count: 1, action: .rateLimit(FaultRateLimit(limit: 1, window: .seconds(60)))),
        ])
        #expect([push(engine).isNone, push(engine).isNone, push(engine).isNone] == [true, false, true])
    }

    @Test func rulesCanBeAddedReplacedAndRemovedAtRuntime() throws {
        let engine = try FaultEngine()
        try engine.add(FaultRule(id: "a", action: .status(500, reason: .internalServerError)))
        #expect(push(engine).firedRules.map(\.id) == ["a"])
        #expect(throws: ConfigurationError(.duplicateID, path: "id", "")) {
            try engine.add(FaultRule(id: "a", action: .closeConnection))
        }
        try engine.add(FaultRule(id: "b", action: .delay(.seconds(1))))
        #expect(try engine.replace(FaultRule(id: "a", count: 1, action: .status(503, reason: .serviceUnavailable))))
        #expect(engine.rules.map(\.id) == ["a", "b"])
        #expect(push(engine).response == .status(503, reason: .serviceUnavailable, timestamp: nil))
        #expect(push(engine).response == nil)
        #expect(try !engine.replace(FaultRule(id: "c", action: .closeConnection)))
        #expect(engine.remove(id: "c")?.action == .closeConnection)
        #expect(engine.remove(id: "missing") == nil)
        try engine.replaceAll([FaultRule(id: "x", action: .resetStream(.cancel))])
        #expect(engine.rules.map(\.id) == ["x"] && engine.rule(id: "x") != nil)
        #expect(throws: ConfigurationError(.duplicateID, path: "faults[1].id", "")) {
            try engine.replaceAll([FaultRule(id: "d", action: .closeConnection), FaultRule(id: "d", action: .closeConnection)])
        }
        #expect(engine.rules.map(\.id) == ["x"])
        engine.removeAll()
        #expect(push(engine).isNone)
    }

    @Test func outOfRangeRulesBuiltInSwiftAreRejected() throws {
        let engine = try FaultEngine()
        #expect(throws: ConfigurationError(.invalidValue, path: "action.status", "")) {
            try engine.add(FaultRule(id: "bad", action: .status(200, reason: .internalServerError)))
        }
        #expect(throws: ConfigurationError(.invalidValue, path: "probability", "")) {
            try engine.add(FaultRule(id: "bad", probability: 1.5, action: .closeConnection))
        }
        #expect(throws: ConfigurationError(.invalidValue, path: "id", "")) {
            try engine.add(FaultRule(id: "has space", action: .closeConnection))
        }
        #expect(throws: ConfigurationError(.invalidValue, path: "faults[0].action.reason", "")) {
            _ = try FaultEngine(rules: [FaultRule(id: "u", action: .unavailable(.badTopic))])
        }
    }

    @Test func concurrentPushesFireACountedRuleExactlyNTimes() async throws {
        let engine = try FaultEngine(rules: [
            FaultRule(id: "counted", count: 1000, action: .status(500, reason: .internalServerError)),
            FaultRule(id: "limit", action: .rateLimit(FaultRateLimit(limit: 50, window: .seconds(3600)))),
        ])
        let tokens = (0..<8).map { DeviceToken(String(format: "%064x", $0))! }
        let (fired, limited) = await withTaskGroup(of: (Int, Int).self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var fired = 0
                    var limited = 0
                    for _ in 0..<2_000 {
                        let decision = engine.evaluate(deviceToken: tokens[worker], topic: "t", pushType: .alert, at: Self.start)
                        if decision.response == .status(500, reason: .internalServerError, timestamp: nil) { fired += 1 }
                        if decision.response == .status(429, reason: .tooManyRequests, timestamp: nil) { limited += 1 }
                    }
                    return (fired, limited)
                }
            }
            return await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        #expect(fired == 1000)
        // Each token lets 50 through the limiter, so 16000 - 1000 - 8 * 50 are limited.
        #expect(limited == 16_000 - 1000 - 8 * 50)
    }

    @Test func rulesChangeSafelyWhilePushesAreEvaluated() async throws {
        let engine = try FaultEngine()
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<500 {
                    try? engine.add(FaultRule(id: "r\(index)", count: 1, action: .delay(.milliseconds(1))))
                    if index % 2 == 0 { engine.remove(id: "r\(index)") }
                }
            }
            for _ in 0..<4 {
                group.addTask {
                    for _ in 0..<5_000 { _ = engine.evaluate(deviceToken: Self.token, topic: nil, pushType: nil) }
                }
            }
        }
        #expect(engine.rules.count == 250)
    }
}
