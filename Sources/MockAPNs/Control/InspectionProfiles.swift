import PushRules

/// The rule profiles the control API judges a captured push by (`GET /profiles`,
/// `GET /pushes/{seq}/findings`): push-inspect's built-in profiles, and the policy given to
/// the mock (``MockConfiguration/policy``) under its name. Each rule set is built once.
struct InspectionProfiles: Sendable {
    /// One profile as `GET /profiles` lists it, with its rules.
    struct Profile: Sendable {
        let name: String
        let description: String
        let rules: RuleSet
    }

    /// In the order listed: the built-in profiles, then the policy.
    let all: [Profile]

    /// The built-in profiles and `policy`'s.
    init(policy: Policy?) {
        var profiles = BuiltInProfile.allCases.map {
            Profile(name: $0.rawValue, description: $0.summary, rules: RuleSet(profiles: [$0]))
        }
        if let policy {
            profiles.append(Profile(name: policy.name, description: "The policy file given to the mock (--policy).",
                                    rules: RuleSet(profiles: [], policies: [policy])))
        }
        all = profiles
    }

    /// The profile called `name`.
    func profile(named name: String) -> Profile? {
        all.first { $0.name == name }
    }
}
