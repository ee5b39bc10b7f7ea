import Foundation
import HermesContract
import PushRules
import Testing

struct TextPatternTests {
    @Test func matchesWholeStringsOnly() throws {
        let pattern = try TextPattern("sess-[a-z0-9]{1,8}")
        #expect(pattern.matches("sess-1"))
        #expect(pattern.matches("sess-abcd1234"))
        #expect(!pattern.matches("sess-"))
        #expect(!pattern.matches("sess-abcd12345"))
        #expect(!pattern.matches("xsess-1"))
        #expect(!pattern.matches("sess-1 "))
    }

    @Test func classesEscapesQuantifiersAndAlternatives() throws {
        #expect(try TextPattern(#"\d+\.\d+"#).matches("10.5"))
        #expect(try !TextPattern(#"\d+\.\d+"#).matches("10x5"))
        #expect(try TextPattern("[^/ ]+").matches("abc"))
        #expect(try !TextPattern("[^/ ]+").matches("a/b"))
        #expect(try TextPattern("a?b*c+").matches("c"))
        #expect(try TextPattern("a?b*c+").matches("abbbccc"))
        #expect(try TextPattern("HERMES_APPROVAL|HERMES_ERROR").matches("HERMES_ERROR"))
        #expect(try !TextPattern("HERMES_APPROVAL|HERMES_ERROR").matches("HERMES_"))
        #expect(try TextPattern(#"\h{4}"#).matches("beEF"))
        #expect(try TextPattern("x{2,}").matches("xxxxx"))
        #expect(try TextPattern("a.c").matches("a-c"))
        #expect(try !TextPattern("a.c").matches("a\nc"))
    }

    @Test func badPatternsAreErrors() {
        for source in ["[abc", "*a", "a{2", "a{3,1}", "(a)", #"a\"#] {
            #expect(throws: TextPattern.SyntaxError.self, "\(source)") { try TextPattern(source) }
        }
    }

    @Test func theHermesSessionPatternAgreesWithTheContract() throws {
        let pattern = try TextPattern(HermesSessionID.pattern)
        for candidate in ["a", "sess-1", "20261130_154126_a1b2c3", "-x", "", "a b", "a/b", String(repeating: "a", count: 128),
                          String(repeating: "a", count: 129), "é", "A:b.c_d-e"] {
            #expect(pattern.matches(candidate) == HermesSessionID.isValid(candidate), "\(candidate)")
        }
    }

    /// Patterns come from policy authors but the text is whatever a sender put in a payload, so
    /// matching must stay linear in the text: a backtracking matcher needed hours for these.
    @Test func hostilePatternsOnLongValuesFinish() throws {
        let long = 4_096
        let cases: [(pattern: String, text: String, matches: Bool)] = [
            ("a*a*a*a*a*a*a*a*b", String(repeating: "a", count: long - 1) + "!", false),
            ("a*a*a*a*a*a*a*a*b", String(repeating: "a", count: long - 1) + "b", true),
            (".*-.*-.*-.*x", String(repeating: "-", count: long), false),
            (".*-.*-.*-.*x", String(repeating: "-", count: long - 1) + "x", true),
            (".*.*.*c", String(repeating: "a", count: long - 1) + "!", false),
            ("[a-z]*[a-z]*[a-z]*[a-z]*c", String(repeating: "a", count: long - 1) + "!", false),
            ("a{0,4096}a{0,4096}a{0,4096}b|a+a+a+c", String(repeating: "a", count: long - 1) + "!", false),
            (#"\w*\w*\w*\w*\w*\w*\d"#, String(repeating: "x", count: long - 1) + "7", true),
        ]
        var runs = 0
        while runs < 50 {
            for (source, text, expected) in cases where runs < 50 {
                #expect(try TextPattern(source).matches(text) == expected, "\(source)")
                runs += 1
            }
        }
    }

    /// The matcher must keep the documented semantics exactly; ICU regular expressions agree with
    /// them on ASCII text, so random patterns over a small alphabet are compared with one.
    @Test func agreesWithARegularExpressionOnRandomPatterns() throws {
        var generator = SplitMix(seed: 0x5EED)
        let atoms = ["a", "b", "-", ".", "[ab]", "[^a]", #"\-"#, #"\d"#]
        let quantifiers = ["", "", "?", "*", "+", "{2}", "{1,}", "{0,2}", "{1,3}"]
        for _ in 0..<400 {
            var alternatives: [String] = []
            for _ in 0...Int(generator.next() % 2) {
                var source = ""
                for _ in 0..<Int(generator.next() % 5) {
                    source += atoms[Int(generator.next() % UInt64(atoms.count))]
                    source += quantifiers[Int(generator.next() % UInt64(quantifiers.count))]
                }
                alternatives.append(source)
            }
            let source = alternatives.joined(separator: "|")
            let pattern = try TextPattern(source)
            let regex = try NSRegularExpression(pattern: "^(?:" + source + ")$")
            for _ in 0..<20 {
                let text = String((0..<Int(generator.next() % 7)).map { _ in Array("ab-1")[Int(generator.next() % 4)] })
                let range = NSRange(text.startIndex..., in: text)
                let expected = regex.firstMatch(in: text, range: range) != nil
                #expect(pattern.matches(text) == expected, "\(source) on \(text)")
            }
        }
    }
}

/// A small deterministic generator, so a failing case can be reproduced.
private struct SplitMix {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
