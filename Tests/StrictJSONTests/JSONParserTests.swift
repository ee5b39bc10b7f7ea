import Testing

@testable import StrictJSON

@Suite struct JSONParserTests {
    func parse(_ text: String) throws -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    @Test func parsesEveryValueKind() throws {
        let value = try parse(#" {"a":[1,-2.5,1e3,"x\u00e9\n",true,false,null],"b":{}} "#)
        #expect(value == .object(["a": [1, -2.5, 1000.0, "x\u{e9}\n", true, false, nil], "b": .object([:])]))
    }

    @Test func keepsIntegersApartFromFractions() throws {
        #expect(try parse("1795958793") == .integer(1_795_958_793))
        #expect(try parse("1795958793.0") == .double(1_795_958_793))
        #expect(try parse("99999999999999999999") == .double(1e20))
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try parse(#""\ud83d\ude00""#) == .string("😀"))
    }

    @Test(arguments: [
        #"{"alg":"ES256","alg":"none"}"#, "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "+1", ".5", "tru",
        "\"\u{01}\"", #""\x""#, #""\ud83d""#, "1 2", "{} x", "NaN", "'a'",
    ])
    func rejectsInvalidJSON(text: String) {
        #expect(throws: JSONParser.Failure.self) { try parse(text) }
    }

    @Test func rejectsInvalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    /// Long strings are scanned eight bytes per step: each kind of byte the scan stops at, at
    /// every place in and after a step, gives the same value or the same failure and offset.
    @Test func stringsAreCheckedAtEveryPlaceOfTheWordScan() throws {
        for place in 0..<20 {
            func document(_ inserted: [UInt8]) -> [UInt8] {
                var text = Array(repeating: UInt8(ascii: "a"), count: 20)
                text.replaceSubrange(place..<place + 1, with: inserted)
                return [UInt8(ascii: "\"")] + text + [UInt8(ascii: "\"")]
            }
            func failure(_ bytes: [UInt8]) -> JSONParser.Failure? {
                do { _ = try JSONParser.parse(bytes) } catch { return error }
                return nil
            }
            let control = failure(document([0x01]))
            #expect(control?.message == "unescaped control character in string" && control?.offset == place + 1)
            #expect(failure(document([0xFF]))?.message == "invalid UTF-8 in string")
            let accented = String(repeating: "a", count: place) + "\u{e9}" + String(repeating: "a", count: 19 - place)
            #expect(try JSONParser.parse(document([0xC3, 0xA9])) == .string(accented))
            let escaped = String(repeating: "a", count: place) + "\n" + String(repeating: "a", count: 19 - place)
            #expect(try JSONParser.parse(document(Array(#"\n"#.utf8))) == .string(escaped))
            let unterminated = failure(Array(document([UInt8(ascii: "a")]).dropLast()))
            #expect(unterminated?.message == "unterminated string" && unterminated?.offset == 21)
        }
    }

    @Test func theProblemNeverQuotesTheDocumentButTheMessageMayForItsAuthor() throws {
        let document = Array(#"{"a":1,"ann@example.com rm -rf /home/ann":2,"ann@example.com rm -rf /home/ann":3}"#.utf8)
        var caught: JSONParser.Failure?
        do { _ = try JSONParser.parse(document) } catch { caught = error }
        let failure = try #require(caught)
        #expect(failure.problem == "duplicate key")
        #expect(failure.quoted == "ann@example.com rm -rf /home/ann")
        #expect(failure.message == #"duplicate key "ann@example.com rm -rf /home/ann""#)
        #expect(failure.description.hasSuffix(" at byte \(failure.offset)"))
    }

    @Test func limitsNesting() throws {
        #expect(throws: JSONParser.Failure.self) {
            try parse(String(repeating: "[", count: 40) + String(repeating: "]", count: 40))
        }
        _ = try parse(String(repeating: "[", count: 20) + String(repeating: "]", count: 20))
    }

    @Test func writerEscapesAndSortsKeys() {
        let value: JSONValue = ["b": "q\"\\\u{01}", "a": [1, 2.5, nil, true]]
        #expect(value.description == #"{"a":[1,2.5,null,true],"b":"q\"\\\u0001"}"#)
    }
}

@Suite struct JSONParserDepthTests {
    @Test func theDepthLimitIsTheCallers() throws {
        let deep = String(repeating: "[", count: 40) + String(repeating: "]", count: 40)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(deep.utf8)) }
        #expect(try JSONParser.parse(Array(deep.utf8), maximumDepth: 64) != .null)
    }

    @Test func hostileNestingFailsWithoutExhaustingTheStack() {
        let hostile = Array(String(repeating: "{\"a\":", count: 100_000).utf8)
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(hostile, maximumDepth: 512) }
    }
}

@Suite struct JSONWriterEscapeTests {
    /// The escapes JavaScript's JSON.stringify and Python's json.dumps use.
    @Test func escapesControlCharactersTheWayJavaScriptDoes() {
        var output: [UInt8] = []
        JSONWriter.writeString("a\u{08}\u{0C}\n\r\t\u{01}\"\\ó", into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #""a\b\f\n\r\t\u0001\"\\ó""#)
    }

    /// Strings without an escape are copied whole; one escape anywhere takes the slow path.
    @Test func plainStringsAreCopiedAndASingleEscapeAnywhereIsStillEscaped() {
        var output = Array("x:".utf8)
        JSONWriter.writeString("Approval needed ó 20261130_154126", into: &output)
        #expect(String(decoding: output, as: UTF8.self) == #"x:"Approval needed ó 20261130_154126""#)
        for (text, expected) in [("ab\"", #""ab\"""#), ("\\ab", #""\\ab""#), ("a\u{1F}b", #""a\u001fb""#), ("", #""""#)] {
            var single: [UInt8] = []
            JSONWriter.writeString(text, into: &single)
            #expect(String(decoding: single, as: UTF8.self) == expected)
        }
    }

    /// The characters a terminal acts on, or that reorder what is shown, beyond the C0 controls.
    static let terminalUnsafe: [Unicode.Scalar] = [0x7F, 0x80, 0x85, 0x9B, 0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029,
                                                   0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        .compactMap(Unicode.Scalar.init(_:))

    /// Terminal-safe strings escape DEL, the C1 and bidirectional controls and U+2028/U+2029
    /// as `\uXXXX` (besides what JSON requires) and parse back to the same text; minimal
    /// escaping, which signed bytes use, leaves them as they are.
    @Test func terminalSafeStringsEscapeDELC1BidiControlsAndSeparators() throws {
        for scalar in Self.terminalUnsafe {
            let text = "a\(Character(scalar))b"
            var safe: [UInt8] = []
            JSONWriter.writeString(text, into: &safe, escaping: .terminalSafe)
            let hex = String(scalar.value, radix: 16)
            #expect(String(decoding: safe, as: UTF8.self) == "\"a\\u\(String(repeating: "0", count: 4 - hex.count) + hex)b\"")
            #expect(try JSONParser.parse(safe) == .string(text))
            var minimal: [UInt8] = []
            JSONWriter.writeString(text, into: &minimal)
            #expect(minimal == Array("\"\(text)\"".utf8), "U+\(hex)")
            #expect(JSONStringEscaping.terminalSafe.escapes(scalar) && !JSONStringEscaping.minimal.escapes(scalar), "U+\(hex)")
        }
        for scalar: Unicode.Scalar in ["\u{0}", "\u{1B}", "\n"] {
            #expect(JSONStringEscaping.terminalSafe.escapes(scalar) && JSONStringEscaping.minimal.escapes(scalar))
        }
        for scalar: Unicode.Scalar in ["a", " ", "~", "\u{A0}", "ó", "\u{200D}", "\u{FFFE}", "😀"] {
            #expect(!JSONStringEscaping.terminalSafe.escapes(scalar) && !JSONStringEscaping.minimal.escapes(scalar))
        }
        var output: [UInt8] = []
        JSONWriter.write(["k\u{9B}": ["ó 😀 \u{200D}\u{1B}[2J\"\\"]], into: &output, escaping: .terminalSafe)
        #expect(String(decoding: output, as: UTF8.self) == #"{"k\u009b":["ó 😀 \#u{200D}\u001b[2J\"\\"]}"#)
    }

    /// A parse failure's message quotes the document's text as a terminal-safe JSON string.
    @Test func failureMessagesQuoteTheDocumentEscaped() {
        let failure = #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(Array(#"{"a\u001b\u009b\"":1,"a\u001b\u009b\"":2}"#.utf8)) }
        #expect(failure?.message == #"duplicate key "a\u001b\u009b\"""#)
        #expect(failure?.problem == "duplicate key")
    }
}
