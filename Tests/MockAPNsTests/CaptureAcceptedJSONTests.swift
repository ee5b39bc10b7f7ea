@testable import APNsCapture
@testable import MockAPNs
import StrictJSON
import Testing

/// The payload's one-pass escape: the same `raw` as the plain escaper, and "compact" exactly
/// when rewriting the text for `parsed` would change nothing.
struct CaptureAcceptedJSONTests {
    private func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = Array(text.utf8)
        _ = try JSONParser.parse(bytes)  // Only accepted text reaches this path.
        var plain = TextBuffer(capacity: 1)
        CaptureJSONOutput.writeEscaped(bytes, into: &plain)
        var fused = TextBuffer(capacity: 1)
        let compact = bytes.withUnsafeBufferPointer { CaptureJSONOutput.writeEscaped(acceptedJSON: $0, into: &fused) }
        var compacted = TextBuffer(capacity: 1)
        CaptureJSONOutput.writeCompacted(json: bytes, into: &compacted)
        #expect(fused.bytes == plain.bytes, "\(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(compact == (compacted.bytes == bytes), "\(text.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func compactTextIsRecognisedAndSpacedTextIsNot() throws {
        let samples = [
            #"{"aps":{"alert":{"title":"Build finished","body":"All 42 checks passed"},"badge":1}}"#,
            #"{"aps":{"alert":"hi"}, "x":1}"#,
            #" {"a":1}"#, #"{"a":1} "#, "{\"a\":1}\n", "{\"a\":\t1}", "{\"a\":1,\r\n\"b\":2}",
            #"{"a b":"c d"}"#, #"{"a":"q\"uote","b":1}"#, #"{"a":"q\" ,uote" ,"b":1}"#,
            #"{"a":"back\\","b":[1, 2]}"#, #"{"a":"back\\"}"#, #"{"a":"\\\"" }"#,
            #"{"u":"\u0041\n\t","e":"é😀"}"#, #""top level string""#, #""x" "#, "1", " 1", "[]", "[ ]",
            #"[1,"a",{"b":null,"c":[true,false]}]"#, #"{"":""}"#, #"{"a":"","b":" "}"#,
        ]
        for sample in samples { try check(sample) }
    }

    @Test func everyLayoutOfStringsAndSpacesAgrees() throws {
        // Strings with escapes and spaces at every offset, so words split them anywhere.
        let pieces = [#""k""#, #""a b""#, #""q\"q""#, #""s\\""#, "1", "[2]", #"{"n":"v"}"#]
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for length in 1..<12 {
            for _ in 0..<24 {
                var members: [String] = []
                for index in 0..<length {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let space = state >> 62 == 0 ? " " : ""
                    members.append("\"m\(index)\":\(space)\(pieces[Int(state >> 32) % pieces.count])")
                }
                try check("{" + members.joined(separator: ",") + "}")
            }
        }
    }
}
