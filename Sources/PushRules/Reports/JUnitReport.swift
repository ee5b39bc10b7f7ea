import StrictJSON

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
    private var errorCount = 0

    /// An empty report.
    public init(suiteName: String, showsValues: Bool = false) {
        self.suiteName = suiteName
        self.showsValues = showsValues
    }

    /// Test cases so far.
    public var testCount: Int { cases.count }
    /// Failed test cases so far.
    public var failures: Int { failureCount }
    /// Test cases in error so far (``addError(className:name:message:)``).
    public var errors: Int { errorCount }

    /// The `classname` of a push's test cases: its `apns-id`, which names the push to its
    /// sender, or where it came from when it has none (a bare payload).
    public static func className(of source: PushSource) -> String {
        source.apnsID ?? source.description
    }

    /// Adds a test case for each rule that applied to the push (checked with `recordApplied: true`).
    public mutating func add(_ result: PushCheckResult) {
        let className = Self.escape(Self.className(of: result.source))
        for rule in result.rulesApplied {
            let findings = result.findings.filter { $0.rule == rule }
            var text = "    <testcase classname=\"\(className)\" name=\"\(Self.escape(rule))\""
            if findings.isEmpty {
                text += "/>"
            } else {
                failureCount += 1
                // A value is the sender's text: shown as check --show-values shows it.
                let lines = findings.map { finding in
                    finding.description + (showsValues ? finding.escapedValue.map { " (value: \($0))" } ?? "" : "")
                }
                text += ">\n      <failure message=\"\(Self.escape(findings[0].description))\" type=\"\(Self.escape(rule))\">"
                text += Self.escape(lines.joined(separator: "\n"))
                text += "</failure>\n    </testcase>"
            }
            cases.append(text)
        }
    }

    /// Adds a test case in error: something kept the run from checking what it was meant to
    /// (an input that could not be read, a damaged capture line). Without it a run that
    /// checked nothing would show CI a passing suite.
    ///
    /// - Parameters:
    ///   - className: the test case's `classname`, such as where the problem was.
    ///   - name: the test case's `name`.
    ///   - message: what went wrong, as a person can act on it.
    public mutating func addError(className: String, name: String, message: String) {
        errorCount += 1
        cases.append(Self.problemCase(className: className, name: name, element: "error", message: message))
    }

    /// Adds a failed test case that no rule produced: an expectation about the input itself
    /// that was not met (fewer pushes arrived than `--wait` asked for).
    ///
    /// - Parameters:
    ///   - className: the test case's `classname`.
    ///   - name: the test case's `name`.
    ///   - message: what was expected and what happened.
    public mutating func addFailure(className: String, name: String, message: String) {
        failureCount += 1
        cases.append(Self.problemCase(className: className, name: name, element: "failure", message: message))
    }

    /// Adds a skipped test case: a check that did not judge the push, and why (an answer a
    /// fault rule of the mock injected, which is not the sender's failure).
    ///
    /// - Parameters:
    ///   - className: the test case's `classname`.
    ///   - name: the test case's `name`.
    ///   - message: why it was skipped.
    public mutating func addSkipped(className: String, name: String, message: String) {
        cases.append("    <testcase classname=\"\(Self.escape(className))\" name=\"\(Self.escape(name))\">\n"
            + "      <skipped message=\"\(Self.escape(message))\"/>\n    </testcase>")
    }

    private static func problemCase(className: String, name: String, element: String, message: String) -> String {
        "    <testcase classname=\"\(escape(className))\" name=\"\(escape(name))\">\n"
            + "      <\(element) message=\"\(escape(message))\" type=\"\(escape(name))\">\(escape(message))</\(element)>\n"
            + "    </testcase>"
    }

    /// The whole document.
    public func xml() -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        text += "<testsuites tests=\"\(cases.count)\" failures=\"\(failureCount)\" errors=\"\(errorCount)\">\n"
        text += "  <testsuite name=\"\(Self.escape(suiteName))\" tests=\"\(cases.count)\" failures=\"\(failureCount)\" "
            + "errors=\"\(errorCount)\">\n"
        for line in cases { text += line + "\n" }
        text += "  </testsuite>\n</testsuites>\n"
        return text
    }

    /// Text made safe for XML attributes and content, and for the person reading the report
    /// in a CI page: besides the five XML escapes, every character push-inspect's text
    /// output escapes (``JSONStringEscaping/terminalSafe``: C0 controls other than tab, line
    /// feed and carriage return, DEL, the C1 controls, the bidirectional controls, U+2028 and
    /// U+2029) and the noncharacters U+FFFE and U+FFFF, which XML 1.0 does not allow, are
    /// written as visible `\uXXXX`. So the document holds only characters XML 1.0 allows.
    /// Shared with other JUnit writers (the gateway conformance suite).
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
            case "\u{FFFE}", "\u{FFFF}": output += unicodeEscape(scalar)
            default:
                if JSONStringEscaping.terminalSafe.escapes(scalar) {
                    output += unicodeEscape(scalar)
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output
    }

    /// `\uXXXX` in lower-case hex, as the JSON escapes are written, for a scalar below U+10000.
    private static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
