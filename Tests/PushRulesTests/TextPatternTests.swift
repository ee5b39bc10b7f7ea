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
}
