/// A JUnit XML report for CI: one test case per push per rule that applied to it, failed
/// when the rule found something.
///
/// ```swift
/// var report = JUnitReport(suiteName: "push-inspect")
/// report.add(rules.check(push, recordApplied: true))
/// try report.xml().write(…)
/// ```
public struct JUnitReport: Sendable {
    /// The `testsuite` name.
    public var suiteName: String
    /// Whether failure texts include the offending values.
    public var showsValues: Bool
    private var cases: [String] = []
    private var failureCount = 0

    /// An empty report.
    public init(suiteName: String, showsValues: Bool = false) {
        self.suiteName = suiteName
        self.showsValues = showsValues
    }

    /// Test cases so far.
    public var testCount: Int { cases.count }
    /// Failed test cases so far.
    public var failures: Int { failureCount }

    /// Adds a test case for each rule that applied to the push (checked with `recordApplied: true`).
    public mutating func add(_ result: PushCheckResult) {
        let className = Self.escape(result.source.description)
        for rule in result.rulesApplied {
            let findings = result.findings.filter { $0.rule == rule }
            var text = "    <testcase classname=\"\(className)\" name=\"\(Self.escape(rule))\""
            if findings.isEmpty {
                text += "/>"
            } else {
                failureCount += 1
                let lines = findings.map { finding in
                    finding.description + (showsValues ? finding.value.map { " (value: \($0))" } ?? "" : "")
                }
                text += ">\n      <failure message=\"\(Self.escape(findings[0].description))\" type=\"\(Self.escape(rule))\">"
                text += Self.escape(lines.joined(separator: "\n"))
                text += "</failure>\n    </testcase>"
            }
            cases.append(text)
        }
    }

    /// The whole document.
    public func xml() -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<testsuites tests=\"\(cases.count)\" failures=\"\(failureCount)\">\n"
        text += "  <testsuite name=\"\(Self.escape(suiteName))\" tests=\"\(cases.count)\" failures=\"\(failureCount)\" errors=\"0\">\n"
        for line in cases { text += line + "\n" }
        text += "  </testsuite>\n</testsuites>\n"
        return text
    }

    /// Text made safe for XML attributes and content; control characters XML 1.0 cannot
    /// hold become U+FFFD. Shared with other JUnit writers (the gateway conformance suite).
    public static func escape(_ text: String) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": output += "&amp;"
            case "<": output += "&lt;"
            case ">": output += "&gt;"
            case "\"": output += "&quot;"
            case "'": output += "&apos;"
            case "\n", "\t", "\r": output.unicodeScalars.append(scalar)
            default:
                output.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF ? "\u{FFFD}" : scalar)
            }
        }
        return output
    }
}
