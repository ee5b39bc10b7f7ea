/// push-inspect's `hermes` profile (module PushRules), once it is part of the build.
///
/// Until branch `inspect` is merged, check 1 verifies contract §3 with
/// ``ContractSection3`` alone; this type says so in the check's notes.
enum HermesProfileCheck {
    static func problems(_ push: CapturedPush) -> [String] { [] }

    static let note = "checked against contract §3 directly (push-inspect's hermes profile is not in this build yet)"
}
