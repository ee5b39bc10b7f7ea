@testable import HermesContract
import StrictJSON
import Testing

/// The flat-object scanner in front of `JSONParser`: it may only take bodies the parser
/// reads the same way, and must hand everything else to the parser.
@Suite struct HermesFieldsTests {
    static let edgeBodies: [String] = [
        #"{}"#, #" { } "#, #"{"a":"b"}"#, "{\n\t\"a\" : \"b\" ,\r\n\"c\":\"\"}\n",
        #"{"a":"b","a":"c"}"#,                  // duplicate key: the parser refuses it
        #"{"a":"b"} x"#, #"{"a":"b"}{}"#,        // trailing bytes
        #"{"a":"b",}"#, #"{,}"#, #"{"a" "b"}"#, #"{"a":"b""#, #"{"a":"b"#, #"{"a:"b"}"#, #"{"a":}"#,
        #"{"a":"b\"c"}"#, #"{"a":"b\\"}"#, #"{"a\u0062":"b"}"#, // escapes: the parser decodes them
        "{\"a\":\"caf\u{e9}\"}", "{\"a\":\"b\u{1}\"}", "{\"a\":\"b\u{7f}\"}", // non-ASCII, control, DEL
        #"{"a":null}"#, #"{"a":1}"#, #"{"a":{"b":"c"}}"#, #"{"a":["b"]}"#, #"{"a":true}"#,
        #"["a"]"#, #""a""#, "", " ", #"{"#, #"}"#,
        // Longer than a word, with the byte that matters late in it (the scan reads eight at a time).
        #"{"approval_needed_for":"a long plain value of ASCII text"}"#,
        #"{"approval_needed_for":"a long plain value with \"escape\""}"#,
        "{\"approval_needed_for\":\"a long plain value ending caf\u{e9}\"}",
        "{\"approval_needed_for\":\"a long plain value with a tab\tinside\"}",
        #"{"approval_needed_for":"a long value cut short"#,
    ]

    @Test(arguments: edgeBodies)
    func scannerAgreesWithTheParserOrDefersToIt(body: String) {
        let bytes = Array(body.utf8)
        guard let members = HermesFields.scanFlatObject(bytes) else { return }
        // Whatever the scanner takes, the parser takes too, with the same strings.
        guard case .object(let parsed)? = try? JSONParser.parse(bytes, maximumDepth: 8) else {
            Issue.record("the scanner accepted \(body.debugDescription), which the parser refuses")
            return
        }
        #expect(members.count == parsed.count)
        for member in members {
            let key = String(decoding: bytes[member.key], as: UTF8.self)
            #expect(parsed[key] == .string(String(decoding: bytes[member.value], as: UTF8.self)))
        }
    }

    @Test func scannerTakesThePluginsBody() {
        var request = HermesPushRequest(deviceToken: String(repeating: "ab", count: 32), environment: .sandbox,
                                        type: .approval, sessionID: "20261130_154126_a1b2c3")
        request.hmac = String(repeating: "0", count: 64)
        #expect(HermesFields.scanFlatObject(request.encodedBody())?.count == 8)
    }

    static let refusedBodies: [(String, HermesRequestError)] = [
        (#"{"device_token":"abab","device_token":"cdcd"}"#, .malformedJSON("")),
        (#"{"device_token":"abab"} trailing"#, .malformedJSON("")),
        (#"{"device_token":"abab",}"#, .malformedJSON("")),
        ("{\"device_token\":\"ab\u{1}ab\"}", .malformedJSON("")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":null}"#, .missingField("apns_env")),
        (#"{"device_token":"abababababababababababababababababababababababababababababababab","apns_env":["sandbox"]}"#, .notAString("apns_env")),
        (#"{"device_token":"\u0061bababababababababababababababababababababababababababababababab","apns_env":"staging"}"#, .invalidValue(field: "apns_env", reason: "")),
    ]

    @Test(arguments: refusedBodies)
    func bodiesOffTheFastPathGetTheParsersErrors(body: String, expected: HermesRequestError) {
        #expect {
            try HermesPushRequest(body: Array(body.utf8))
        } throws: { error in
            switch (error as? HermesRequestError, expected) {
            case (.malformedJSON?, .malformedJSON): true
            case (.invalidValue(let field, _)?, .invalidValue(let expectedField, _)): field == expectedField
            case (let error?, _): error == expected
            default: false
            }
        }
    }

    @Test func escapedValuesAreDecodedBeforeTheyAreChecked() throws {
        // "\u0061b" is "ab": the parser's reading, never the raw bytes, is what is validated.
        let fields = try HermesFields(bytes: Array(#"{"device_token":"\u0061b"}"#.utf8))
        #expect(try fields.requiredString("device_token") == "ab")
    }
}
