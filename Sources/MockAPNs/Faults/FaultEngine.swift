import APNsCore
import Foundation
import Synchronization

/// Decides, for each push, which fault rules fire and what the server must do about them.
///
/// Safe to call from every event-loop thread at once. With no rule that can still fire,
/// ``evaluate(deviceToken:topic:pushType:at:)`` reads one atomic flag and returns
/// ``FaultDecision/none``, so a mock without faults pays nothing measurable. With rules,
/// evaluation takes one lock, because counts and rate-limit windows are shared state.
///
/// Rules are evaluated in order, except that `unavailable` rules come first. A push can
/// fire several rules: delays add up, the first rule that answers the stream (`status`,
/// `resetStream`, `rateLimit`, `unavailable`) wins, and the first that acts on the
/// connection (`goAway`, `closeConnection`) wins. A rule whose part is already taken is
/// skipped without using up its count or probability roll. `closeConnection` ends the
/// evaluation: nothing is answered on a closed connection.
///
/// ```swift
/// let engine = FaultEngine(rules: configuration.faults)
/// let decision = engine.evaluate(deviceToken: token, topic: topic, pushType: .alert)
/// if decision.isNone { /* validate and answer as usual */ }
/// ```
public final class FaultEngine: Sendable {
    private struct RuleState {
        var rule: FaultRule
        var fired = 0
        var tracker: RateLimitTracker?

        init(_ rule: FaultRule) {
            self.rule = rule
            if case .rateLimit(let limit) = rule.action { tracker = RateLimitTracker(limit) }
        }

        var isSpent: Bool { rule.count.map { fired >= $0 } ?? false }
        var isUnavailable: Bool {
            if case .unavailable = rule.action { return true }
            return false
        }
    }

    private let state: Mutex<[RuleState]>
    /// True while some rule can still fire; read without the lock on every push.
    private let armed = Atomic<Bool>(false)
    private let random: FaultRandomSource

    /// Creates an engine.
    ///
    /// - Parameters:
    ///   - rules: The initial rules; their ids must be unique and their values in range.
    ///   - random: Where probabilities get their random numbers; inject one in tests.
    /// - Throws: ``ConfigurationError`` for a duplicate id or an out-of-range value.
    public init(rules: [FaultRule] = [], random: FaultRandomSource = .system) throws(ConfigurationError) {
        try Self.validate(rules)
        self.random = random
        state = Mutex(rules.map(RuleState.init))
        state.withLock { updateArmed($0) }
    }

    // MARK: Runtime changes

    /// The rules, in evaluation order (before `unavailable` rules are moved first).
    public var rules: [FaultRule] { state.withLock { $0.map(\.rule) } }

    /// How often each rule has fired, in rule order.
    public var statistics: [FaultRuleStatistics] {
        state.withLock { states in states.map(Self.statistics(of:)) }
    }

    /// Each rule with how often it has fired, in rule order, read together under one lock
    /// so that a listing never pairs a rule with another rule's counts.
    public var rulesWithStatistics: [(rule: FaultRule, statistics: FaultRuleStatistics)] {
        state.withLock { states in states.map { ($0.rule, Self.statistics(of: $0)) } }
    }

    private static func statistics(of entry: RuleState) -> FaultRuleStatistics {
        FaultRuleStatistics(id: entry.rule.id, fired: entry.fired, remaining: entry.rule.count.map { max(0, $0 - entry.fired) })
    }

    /// The rule with this id, if any.
    public func rule(id: String) -> FaultRule? {
        state.withLock { states in states.first { $0.rule.id == id }?.rule }
    }

    /// Adds a rule after the existing ones.
    ///
    /// - Throws: ``ConfigurationError`` with code `.duplicateID` if a rule has the same id,
    ///   or `.invalidValue` for an out-of-range value.
    public func add(_ rule: FaultRule) throws(ConfigurationError) {
        try rule.validate()
        try state.withLock { (states) throws(ConfigurationError) in
            guard !states.contains(where: { $0.rule.id == rule.id }) else {
                throw ConfigurationError(.duplicateID, path: FaultRuleKey.id, "a fault rule with id \"\(rule.id)\" already exists")
            }
            states.append(RuleState(rule))
            updateArmed(states)
        }
    }

    /// Replaces the rule with the same id in place, with fresh counts, or adds it at the end.
    ///
    /// - Returns: Whether a rule was replaced.
    /// - Throws: ``ConfigurationError`` for an out-of-range value.
    @discardableResult
    public func replace(_ rule: FaultRule) throws(ConfigurationError) -> Bool {
        try rule.validate()
        return state.withLock { states in
            defer { updateArmed(states) }
            if let index = states.firstIndex(where: { $0.rule.id == rule.id }) {
                states[index] = RuleState(rule)
                return true
            }
            states.append(RuleState(rule))
            return false
        }
    }

    /// Replaces every rule, with fresh counts.
    ///
    /// - Throws: ``ConfigurationError`` for a duplicate id or an out-of-range value, naming
    ///   the rule's index; the rules are then left as they were.
    public func replaceAll(_ rules: [FaultRule]) throws(ConfigurationError) {
        try Self.validate(rules)
        state.withLock { states in
            states = rules.map(RuleState.init)
            updateArmed(states)
        }
    }

    /// Removes the rule with this id.
    ///
    /// - Returns: The removed rule, or nil if there was none.
    @discardableResult
    public func remove(id: String) -> FaultRule? {
        state.withLock { states in
            guard let index = states.firstIndex(where: { $0.rule.id == id }) else { return nil }
            defer { updateArmed(states) }
            return states.remove(at: index).rule
        }
    }

    /// Removes every rule.
    public func removeAll() {
        state.withLock { states in
            states.removeAll()
            updateArmed(states)
        }
    }

    // MARK: Evaluation

    /// Decides what faults apply to one push.
    ///
    /// - Parameters:
    ///   - deviceToken: The token from the path, if it parsed.
    ///   - topic: `apns-topic`, if present.
    ///   - pushType: `apns-push-type`, if present and known.
    ///   - now: When the push arrived: rate-limit windows and 410 timestamps use it.
    /// - Returns: What the server must do; ``FaultDecision/none`` when no rule fired.
    public func evaluate(
        deviceToken: DeviceToken?, topic: String?, pushType: APNsPushType?, channelID: String? = nil, at now: Date = Date()
    ) -> FaultDecision {
        guard armed.load(ordering: .relaxed) else { return .none }
        return state.withLock { states in
            evaluate(&states, deviceToken: deviceToken, topic: topic, pushType: pushType, channelID: channelID, now: now)
        }
    }

    /// Decides what faults apply to a push, from what validation learned about it.
    public func evaluate(_ details: PushDetails, at now: Date = Date()) -> FaultDecision {
        evaluate(deviceToken: details.deviceToken, topic: details.topic, pushType: details.pushType, channelID: details.channelID, at: now)
    }

    private func evaluate(
        _ states: inout [RuleState], deviceToken: DeviceToken?, topic: String?, pushType: APNsPushType?, channelID: String?,
        now: Date
    ) -> FaultDecision {
        var decision = FaultDecision()
        var spentOne = false
        let seconds = now.timeIntervalSince1970
        // Two passes over the array instead of a sorted copy: no allocation per push.
        passes: for unavailablePass in [true, false] {
            for index in states.indices where states[index].isUnavailable == unavailablePass {
                if states[index].isSpent { continue }
                let rule = states[index].rule
                if !canApply(rule.action, to: decision) { continue }
                guard rule.match.matches(deviceToken: deviceToken, topic: topic, pushType: pushType, channelID: channelID) else { continue }
                var limitedToken: DeviceToken?
                if states[index].tracker != nil {
                    guard let deviceToken else { continue }
                    guard states[index].tracker?.isOverLimit(deviceToken, now: seconds) == true else {
                        states[index].tracker?.record(deviceToken, now: seconds)
                        continue
                    }
                    limitedToken = deviceToken
                }
                if let probability = rule.probability, probability < 1, !(random.nextUnit() < probability) {
                    // Not fired, so a rate-limited push was let through after all and counts.
                    if let limitedToken { states[index].tracker?.record(limitedToken, now: seconds) }
                    continue
                }
                states[index].fired += 1
                if states[index].isSpent { spentOne = true }
                decision.firedRules.append(FaultDecision.FiredRule(id: rule.id, summary: rule.summary))
                apply(rule.action, to: &decision, now: now)
                if decision.connectionAction == .close { break passes }
            }
        }
        if spentOne { updateArmed(states) }
        return decision
    }

    /// Whether the part of the decision `action` sets is still free.
    private func canApply(_ action: FaultAction, to decision: FaultDecision) -> Bool {
        switch action {
        case .delay: true
        case .status, .resetStream, .rateLimit, .unavailable: decision.response == nil
        case .goAway: decision.connectionAction == nil
        case .closeConnection: decision.connectionAction == nil && decision.response == nil
        }
    }

    private func apply(_ action: FaultAction, to decision: inout FaultDecision, now: Date) {
        switch action {
        case .delay(let delay):
            decision.delay += delay
        case .status(let status, let reason):
            let timestamp = status == 410 ? EpochMilliseconds.of(now, rounding: .down) : nil
            decision.response = .status(status, reason: reason, timestamp: timestamp)
        case .resetStream(let code):
            decision.response = .resetStream(code)
        case .rateLimit:
            decision.response = .status(429, reason: .tooManyRequests, timestamp: nil)
        case .unavailable(let reason):
            decision.response = .status(503, reason: reason, timestamp: nil)
        case .goAway(let code, let reason):
            let debugData = reason.map { APNsErrorResponse(reason: $0).jsonBytes } ?? []
            decision.connectionAction = .goAway(errorCode: code, debugData: debugData)
        case .closeConnection:
            decision.connectionAction = .close
        }
    }

    /// Stores whether any rule can still fire. Called with the lock held, so the flag never
    /// lags behind a change for longer than the change itself takes.
    private func updateArmed(_ states: [RuleState]) {
        armed.store(states.contains { !$0.isSpent }, ordering: .relaxed)
    }

    private static func validate(_ rules: [FaultRule]) throws(ConfigurationError) {
        var seen: Set<String> = []
        for (index, rule) in rules.enumerated() {
            let path = JSONField.path("faults", index)
            try rule.validate(path: path)
            guard seen.insert(rule.id).inserted else {
                throw ConfigurationError(
                    .duplicateID, path: JSONField.path(path, FaultRuleKey.id), "duplicate fault rule id \"\(rule.id)\"")
            }
        }
    }
}
