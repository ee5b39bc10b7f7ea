import PushRules

/// The suite's output: a pass/fail table for people and JUnit XML for CI.
public enum ConformanceReport {
    /// One row per check, then its notes indented; a summary line last.
    public static func table(_ results: [ConformanceCheckResult]) -> String {
        var text = " #  result  check\n"
        for result in results {
            text += " \(result.number)  \(result.passed ? "PASS" : "FAIL")    \(result.title)\n"
            for detail in result.details { text += "          - \(detail)\n" }
        }
        let failed = results.filter { !$0.passed }.count
        text += failed == 0 ? "\nall \(results.count) checks passed\n" : "\n\(failed) of \(results.count) checks failed\n"
        return text
    }

    /// A JUnit `<testsuite>` with one `<testcase>` per check, failures with their details.
    public static func junit(_ results: [ConformanceCheckResult], suiteName: String = "gateway-conformance") -> String {
        let failures = results.filter { !$0.passed }.count
        let total = results.reduce(0) { $0 + $1.seconds }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuite name="\#(JUnitReport.escape(suiteName))" tests="\#(results.count)" failures="\#(failures)" errors="0" time="\#(seconds(total))">"# + "\n"
        for result in results {
            let name = "\(result.number). \(result.title)"
            xml += #"  <testcase classname="\#(JUnitReport.escape(suiteName))" name="\#(JUnitReport.escape(name))" time="\#(seconds(result.seconds))""#
            if result.passed {
                if result.details.isEmpty {
                    xml += "/>\n"
                } else {
                    xml += ">\n    <system-out>\(JUnitReport.escape(result.details.joined(separator: "\n")))</system-out>\n  </testcase>\n"
                }
            } else {
                let message = result.details.first ?? "failed"
                xml += ">\n    <failure message=\"\(JUnitReport.escape(message))\">\(JUnitReport.escape(result.details.joined(separator: "\n")))</failure>\n  </testcase>\n"
            }
        }
        xml += "</testsuite>\n"
        return xml
    }

    private static func seconds(_ value: Double) -> String {
        String(Double((value * 1000).rounded()) / 1000)
    }
}
