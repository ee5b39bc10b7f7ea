import StrictJSON

/// Which pushes a rule applies to: all conditions must hold; an absent condition holds.
///
/// ```swift
/// // Only approval pushes need a badge.
/// let scope = RuleScope(where: [.init(path: "type", equalsAnyOf: ["approval"])])
/// ```
public struct RuleScope: Sendable, Hashable {
    /// A payload field that must hold one of some values.
    public struct FieldCondition: Sendable, Hashable {
        /// The field.
        public var path: JSONPath
        /// The values it may hold for the rule to apply.
        public var values: Set<JSONValue> {
            didSet { list = Array(values) }
        }
        /// The same values as an array: a scope holds a handful, and comparing a few strings
        /// costs less than hashing one.
        private var list: [JSONValue]

        /// A condition: the field at `path` equals one of `values`.
        public init(path: JSONPath, equalsAnyOf values: Set<JSONValue>) {
            self.path = path
            self.values = values
            self.list = Array(values)
        }

        /// Whether `value` is one of the values.
        func matches(_ value: JSONValue) -> Bool {
            list.count <= 8 ? list.contains(value) : values.contains(value)
        }

        public static func == (lhs: FieldCondition, rhs: FieldCondition) -> Bool {
            lhs.path == rhs.path && lhs.values == rhs.values
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(path)
            hasher.combine(values)
        }
    }

    /// Push types; nil for any. They are matched against the type APNs goes by
    /// (`apns-push-type` as sent, and without it the type the topic's suffix or the payload
    /// implies: a push to a `.voip` topic is `voip`), the type the `apple` rules judge a push
    /// by, so that a scope and those rules never disagree about what a push is.
    public var pushTypes: Set<String>?
    /// `apns-topic` values; nil for any.
    public var topics: Set<String>?
    /// Payload conditions.
    public var fields: [FieldCondition]
    /// Whether the rule also judges captured requests that never were pushes
    /// (``PushInput/nonPushRequest``); no payload or header rule does.
    public var includesNonPushes: Bool

    /// Every push.
    public static let all = RuleScope()

    /// A scope; with no arguments, every push.
    public init(
        pushTypes: Set<String>? = nil, topics: Set<String>? = nil, where fields: [FieldCondition] = [], includesNonPushes: Bool = false
    ) {
        self.pushTypes = pushTypes
        self.topics = topics
        self.fields = fields
        self.includesNonPushes = includesNonPushes
    }

    /// Whether a rule with this scope applies to `push`.
    public func contains(_ push: PushInput) -> Bool {
        if push.nonPushRequest != nil, !includesNonPushes { return false }
        if let pushTypes, !pushTypes.contains(push.effectivePushTypeName) { return false }
        if let topics {
            guard let topic = push.headers.topic, topics.contains(topic) else { return false }
        }
        for condition in fields {
            guard let value = push.payload?.value(at: condition.path), condition.matches(value) else {
                return false
            }
        }
        return true
    }

    /// The scope that holds when both this one and `other` do.
    public func intersected(with other: RuleScope) -> RuleScope {
        RuleScope(
            pushTypes: Self.intersect(pushTypes, other.pushTypes), topics: Self.intersect(topics, other.topics),
            where: fields + other.fields, includesNonPushes: includesNonPushes && other.includesNonPushes)
    }

    private static func intersect(_ a: Set<String>?, _ b: Set<String>?) -> Set<String>? {
        switch (a, b) {
        case (nil, let only), (let only, nil): only
        case (let a?, let b?): a.intersection(b)
        }
    }
}
