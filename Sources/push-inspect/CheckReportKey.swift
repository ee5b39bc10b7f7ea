/// The member names of `check --json`'s object, defined once (docs/push-inspect.md). They
/// are snake_case, as every JSON document of the suite is; each failure's members are the
/// push source's and each finding's (`Finding.jsonValue(showValues:)`).
enum CheckReportKey {
    static let rules = "rules"
    static let failures = "failures"
    static let injected = "injected"
    static let findings = "findings"
    static let pushes = "pushes"
    static let passed = "passed"
    static let failed = "failed"
    static let inputErrors = "input_errors"
    static let waitSatisfied = "wait_satisfied"
}
