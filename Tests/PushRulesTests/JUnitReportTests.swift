import Foundation
import FoundationXML
import PushRules
import StrictJSON
import Testing

/// The JUnit report: the sender's text in it is escaped as push-inspect's text output
/// escapes it, and the document holds no character XML 1.0 forbids.
struct JUnitReportTests {
    /// C1 (the 8-bit CSI), DEL, bidirectional controls, the line and paragraph separators,
    /// C0 controls and U+FFFE, which XML 1.0 does not allow.
    static let hostile = "\u{9B}31m\u{7F}\u{202E}evil\u{2066}\u{2028}\u{2029}\u{1B}[2J\u{FFFE}\u{0B}"

    /// Whether `text` holds a character a terminal or a CI page acts on, or one XML 1.0
    /// forbids or discourages, other than tab, line feed and carriage return.
    static func hasRawControls(_ text: String) -> Bool {
        text.unicodeScalars.contains {
            switch $0.value {
            case 0x09, 0x0A, 0x0D: false
            case 0...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028...0x202E, 0x2066...0x2069, 0xFFFE, 0xFFFF: true
            default: false
            }
        }
    }

    @Test func senderTextAppearsOnlyAsVisibleEscapes() throws {
        var payload: [UInt8] = []
        JSONWriter.write(["aps": ["badge": .string(Self.hostile)]], into: &payload)
        let topic = "com.example\u{9B}app\u{202E}"
        let push = PushInput(headers: PushHeaders(pushType: "voip", topic: topic, priority: 10), payload: payload)
        var report = JUnitReport(suiteName: "push-inspect", showsValues: true)
        report.add(RuleSet(profiles: [.apple]).check(push, recordApplied: true))
        let xml = report.xml()

        #expect(!Self.hasRawControls(xml), "\(xml.debugDescription)")
        // A payload value as check --show-values prints it: JSON with terminal-safe escapes.
        #expect(xml.contains(#"(value: &quot;\u009b31m\u007f\u202eevil\u2066\u2028\u2029\u001b[2J\ufffe\u000b&quot;)"#), "\(xml)")
        // A header's value as the escaped text.
        #expect(xml.contains(#"(value: com.example\u009bapp\u202e)"#), "\(xml)")
        let parser = XMLParser(data: Data(xml.utf8))
        #expect(parser.parse(), "well-formed XML: \(String(describing: parser.parserError))")
    }

    @Test func escapeWritesControlsAsVisibleEscapesAndKeepsLineBreaks() {
        #expect(JUnitReport.escape("a\u{1B}[1m\u{9B}\u{202E}\u{2028}\u{FFFF}\t\n\r<&>\"'")
            == #"a\u001b[1m\u009b\u202e\u2028\uffff"# + "\t\n\r&lt;&amp;&gt;&quot;&apos;")
        #expect(JUnitReport.escape("café — ✓ 🇫🇷") == "café — ✓ 🇫🇷")
    }
}
