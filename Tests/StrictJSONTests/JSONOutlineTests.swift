import Testing

@testable import StrictJSON

/// `outline` must accept and reject exactly what `parse` does, with the same failure, and
/// read the member as `parse` would have built it.
@Suite struct JSONOutlineTests {
    /// The verdicts of both, compared: same failure, or same type and same member.
    func expectAgreement(_ bytes: [UInt8], member: String = "aps", maximumDepth: Int = 8,
                         sourceLocation: SourceLocation = #_sourceLocation) {
        let parsed = Result { () throws(JSONParser.Failure) in try JSONParser.parse(bytes, maximumDepth: maximumDepth) }
        let outlined = Result { () throws(JSONParser.Failure) in
            try JSONParser.outline(bytes, maximumDepth: maximumDepth, member: member)
        }
        switch (parsed, outlined) {
        case (.failure(let expected), .failure(let actual)):
            #expect(actual == expected, "\(String(decoding: bytes, as: UTF8.self))", sourceLocation: sourceLocation)
        case (.success(let value), .success(let outline)):
            let reference = JSONOutline(value, member: member)
            #expect(outline.typeName == reference.typeName, sourceLocation: sourceLocation)
            #expect(normalized(outline.member) == normalized(reference.member), "\(String(decoding: bytes, as: UTF8.self))",
                    sourceLocation: sourceLocation)
            #expect(outline.memberFields.map(normalized) == reference.memberFields.map(normalized), sourceLocation: sourceLocation)
        default:
            Issue.record("parse \(parsed) but outline \(outlined) for \(String(decoding: bytes, as: UTF8.self))",
                         sourceLocation: sourceLocation)
        }
    }

    /// Object keys compared as sets: the tree has no order, the scan keeps the document's.
    func normalized(_ value: JSONShallowValue?) -> JSONShallowValue? {
        if case .object(let keys)? = value { return .object(keys: keys.sorted()) }
        return value
    }

    func normalized(_ object: JSONShallowObject) -> [String: JSONShallowValue?] {
        Dictionary(uniqueKeysWithValues: object.members.map { ($0.key, normalized($0.value)) })
    }

    @Test func readsTheMemberOneLevelDeep() throws {
        let outline = try JSONParser.outline(
            Array(#"{"build":{"id":"b-1"},"aps":{"alert":{"title":"T","body":"B"},"badge":1,"sound":"default","x":[1,{"y":2}],"s":1.5,"n":null,"t":true}}"#.utf8),
            member: "aps")
        #expect(outline.typeName == "object" && outline.isObject)
        let aps = try #require(outline.memberFields)
        #expect(aps["badge"] == .integer(1))
        #expect(aps["sound"] == .string("default"))
        #expect(aps["x"] == .array)
        #expect(aps["s"] == .double(1.5))
        #expect(aps["n"] == .null)
        #expect(aps["t"] == .bool(true))
        #expect(normalized(aps["alert"]) == .object(keys: ["body", "title"]))
        #expect(aps["missing"] == nil)
    }

    /// ASCII keys and strings are copied into strings without a second check: every length
    /// around the small-string limit (15 bytes) reads back as written.
    @Test func readsASCIIKeysAndStringsOfEveryShortLength() throws {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 !#$%&'()*+,-./:;<=>?@[]^_`{|}~")
        for length in 0...40 {
            let text = String(alphabet[0..<length])
            let document = Array(#"{"aps":{"\#(text)":"\#(text)","k":{"\#(text)":1}}}"#.utf8)
            let aps = try #require(try JSONParser.outline(document, member: "aps").memberFields)
            #expect(aps.members.map(\.key) == [text, "k"])
            #expect(aps[text] == .string(text))
            #expect(aps["k"] == .object(keys: [text]))
            #expect(try JSONParser.parse(document) == .object(["aps": .object([text: .string(text), "k": .object([text: .integer(1)])])]))
        }
    }

    @Test func findsTheMemberOnlyAtTheTopAndThroughEscapes() throws {
        #expect(try JSONParser.outline(Array(#"{"a":{"aps":1}}"#.utf8), member: "aps").member == nil)
        #expect(try JSONParser.outline(Array(#"[{"aps":1}]"#.utf8), member: "aps").member == nil)
        #expect(try JSONParser.outline(Array(#"{"\u0061ps":7}"#.utf8), member: "aps").member == .integer(7))
        #expect(try JSONParser.outline(Array("5".utf8), member: "aps").typeName == "integer")
        #expect(try JSONParser.outline(Array("[]".utf8), member: "aps").isObject == false)
    }

    @Test(arguments: [
        #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, #"{"aps":{"k":1,"k":2}}"#, #"{"x":[{"k":1,"k":1}]}"#,
        #"{"aps":1,"aps":1}"#, "{", "[1,]", "{\"a\":1,}", "01", "1.", "-", "+1", ".5", "tru", "\"\u{01}\"", #""\x""#,
        #""\ud83d""#, "1 2", "{} x", "NaN", "'a'", "1e999", #"{"a":"\ud800\u0041"}"#, "{\"a\" 1}", "[1 2]",
        String(repeating: "[", count: 9) + String(repeating: "]", count: 9),
    ])
    func rejectsWhatTheParserRejectsWithTheSameFailure(text: String) {
        expectAgreement(Array(text.utf8))
    }

    @Test func rejectsInvalidUTF8InKeysAndValues() {
        expectAgreement([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D])          // {"\xC3(":1}
        expectAgreement([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D])  // a surrogate in UTF-8
        expectAgreement([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22])                      // past U+10FFFF
    }

    /// Every single-byte change of a few payloads: the two must agree on each mutant.
    @Test func agreesWithTheParserOnEveryOneByteMutation() {
        expectAgreementOnEveryOneByteMutation(of: [
            #"{"aps":{"alert":{"title":"Hi é","body":"x\"y"},"badge":1,"sound":"default"},"d":[1,2.5,-3e2,true,false,null],"k":{"aps":0}}"#,
            #"{"aps":{"content-available":1},"\u0061":"\ud83d\ude00","b":{}}"#,
            #" [ {"aps" : [ ] } , "aps" , 0 ] "#,
        ])
    }

    /// The member is read while it is checked: mutations inside and around it (its keys,
    /// escaped and not, values of every type, nested objects and arrays) must still get the
    /// parser's verdict and the parser's reading.
    @Test func agreesAroundTheMemberOnEveryOneByteMutation() {
        expectAgreementOnEveryOneByteMutation(of: [
            #"{"b":1,"aps":{"alert":{"title":"T","loc-args":["a",{"k":1}]},"\u0062adge":2,"sound":"d\u00e9","x":-0.5e1,"t":true,"f":false,"n":null,"a":[]},"z":{}}"#,
            // Changing an "a" to "e" makes a key canonically equivalent to the one before it.
            "{\"aps\":{\"\u{212A}\":1,\"k\":{\"\u{E9}\":2,\"a\u{301}\":3},\"\u{E9}\":{},\"a\u{301}\":4},\"\u{E9}\":0,\"a\u{301}\":1}",
            #"{"aps":"text","\u0061ps2":{"aps":{"a":1}},"s":[{"aps":1}]}"#,
        ])
    }

    func expectAgreementOnEveryOneByteMutation(of documents: [String]) {
        let replacements: [UInt8] = Array(#"{}[]":,\"0-9.eE+atfnu "#.utf8) + [0x00, 0x1F, 0x80, 0xC3, 0xFF]
        for document in documents {
            let bytes = Array(document.utf8)
            expectAgreement(bytes)
            for index in bytes.indices {
                for replacement in replacements where replacement != bytes[index] {
                    var mutant = bytes
                    mutant[index] = replacement
                    expectAgreement(mutant)
                }
                var shorter = bytes
                shorter.remove(at: index)
                expectAgreement(shorter)
            }
        }
    }

    /// The nesting limit counts the member and what lies inside it as the parser does. Each
    /// document is deepest in one place only, so that no other place rejects it first.
    @Test(arguments: 0...5)
    func agreesOnTheNestingLimitAtAndInsideTheMember(maximumDepth: Int) {
        for text in [
            #"{"aps":{"alert":{"title":"T"}}}"#, #"{"aps":{"x":[[1]]}}"#, #"{"aps":[[{"a":1}]]}"#, #"{"aps":{}}"#,
            #"{"aps":1}"#, #"{"a":{"b":{"c":{}}},"aps":{"k":1}}"#, #"{"aps":{"k":{"l":[]}}}"#,
            #"{"aps":{"k":{"l":{"m":1}}}}"#, #"[{"aps":{"k":1}}]"#, #"{"b":[{"aps":{"k":{}}}],"aps":{}}"#,
        ] {
            expectAgreement(Array(text.utf8), maximumDepth: maximumDepth)
        }
    }

    @Test(arguments: [
        #"{"aps":{"badge":1},"aps":{"badge":1}}"#, #"{"aps":{"badge":1},"\u0061ps":2}"#,
        #"{"aps":{"badge":1,"badge":2}}"#, #"{"aps":{"badge":1,"b\u0061dge":2}}"#,
        #"{"aps":{"alert":{"title":"a","title":"b"}}}"#, #"{"aps":{"a":[{"k":1,"k":2}]}}"#,
        #"{"aps":{"badge":1}"#, #"{"aps":{"badge":}}"#, #"{"aps":{"badge" 1}}"#, #"{"aps":{"alert":{"title":"x"}}"#,
        #"{"aps":{"badge":1,}}"#, #"{"aps":{"s":"\x"}}"#, #"{"aps":{"n":01}}"#, #"{"aps":{"n":1e999}}"#,
        #"{"aps":tru}"#, #"{"aps":{"alert":{"t":[}}}"#, #"{"aps":{"k":"\ud800"}}"#,
    ])
    func rejectsWhatTheParserRejectsInsideTheMember(text: String) {
        expectAgreement(Array(text.utf8))
    }

    @Test func readsTheMemberThroughEscapedKeysAndWhenItIsNotAnObject() throws {
        let escaped = try JSONParser.outline(Array(#"{"\u0061ps":{"b\u0061dge":3,"\u00e9":{"k\u00e9":1}}}"#.utf8), member: "aps")
        let aps = try #require(escaped.memberFields)
        #expect(aps["badge"] == .integer(3))
        #expect(aps["\u{E9}"] == .object(keys: ["k\u{E9}"]))
        let text = try JSONParser.outline(Array(#"{"aps":"hello","b":{"aps":{}}}"#.utf8), member: "aps")
        #expect(text.member == .string("hello") && text.memberFields == nil)
        let empty = try JSONParser.outline(Array(#"{"aps":{}}"#.utf8), member: "aps")
        #expect(empty.member == .object(keys: []) && empty.memberFields?.members.isEmpty == true)
        #expect(try JSONParser.outline(Array(#"{"aps":[1]}"#.utf8), member: "aps").member == .array)
    }
}

/// Keys the parser's dictionary treats as equal although their bytes differ.
@Suite struct JSONOutlineKeyEquivalenceTests {
    @Test(arguments: [
        "{\"\u{212A}\":1,\"K\":2}",                 // Kelvin sign, then K
        "{\"\u{037E}\":1,\";\":2}",                 // Greek question mark, then ;
        "{\"\u{E9}\":1,\"e\u{301}\":2}",            // é precomposed, then decomposed
        "{\"aps\":{\"alert\":\"hi\"},\"\u{212A}\":1,\"K\":2}",
        "{\"aps\":{\"\u{E9}\":1,\"e\u{301}\":2}}",
    ])
    func canonicallyEquivalentKeysAreDuplicates(text: String) {
        JSONOutlineTests().expectAgreement(Array(text.utf8))
    }

    @Test func manyKeysInOneObjectAreCheckedByHashingWithTheSameVerdicts() {
        let members = (0..<300).map { #""\u006B\#($0)":0"# }
        JSONOutlineTests().expectAgreement(Array(("{" + members.joined(separator: ",") + "}").utf8))
        JSONOutlineTests().expectAgreement(Array(("{" + (members + [#""k7":1"#]).joined(separator: ",") + "}").utf8))
        let plain = (0..<300).map { #""key\#($0)":0"# }
        JSONOutlineTests().expectAgreement(Array(("{" + (plain + [#""key299":1"#]).joined(separator: ",") + "}").utf8))
        JSONOutlineTests().expectAgreement(Array(("{" + (plain + ["\"\u{212A}ey3\":1", "\"Key3\":1"]).joined(separator: ",") + "}").utf8))
    }

    /// An object's keys are still compared after the objects inside it have pushed the walk's
    /// keys past its first storage: three open objects of 15 keys each (fewer than the
    /// hashing threshold, so each key is compared with the stored ones).
    @Test(arguments: ["aps", "x"])
    func keysOfOuterObjectsSurviveTheKeyStackGrowing(member: String) {
        func members(_ prefix: String) -> [String] { (0..<14).map { #""\#(prefix)\#($0)":0"# } }
        for (outerRepeat, middleRepeat) in [("", ""), (#","o13":1"#, ""), ("", #","p13":1"#), ("", #","p0":1"#)] {
            let innermost = "{" + members("r").joined(separator: ",") + "}"
            let middle = "{" + (members("p") + [#""q":"# + innermost]).joined(separator: ",") + middleRepeat + "}"
            let text = "{" + (members("o") + ["\"\(member)\":" + middle]).joined(separator: ",") + outerRepeat + "}"
            JSONOutlineTests().expectAgreement(Array(text.utf8))
        }
    }
}
