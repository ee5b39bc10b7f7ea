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
        let documents = [
            #"{"aps":{"alert":{"title":"Hi é","body":"x\"y"},"badge":1,"sound":"default"},"d":[1,2.5,-3e2,true,false,null],"k":{"aps":0}}"#,
            #"{"aps":{"content-available":1},"\u0061":"\ud83d\ude00","b":{}}"#,
            #" [ {"aps" : [ ] } , "aps" , 0 ] "#,
        ]
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
}
