@testable import APNsCapture
import StrictJSON
import Testing

/// A JSON payload is written as `parsed`, its text without the whitespace between tokens,
/// and read back from the line's text: compaction must drop exactly that whitespace, and the
/// line scan must find exactly the text written, whatever strings and spaces it holds.
struct CaptureCompactionTests {
    /// The text without the whitespace outside strings, one byte at a time.
    private func reference(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in bytes {
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if [0x20, 0x09, 0x0A, 0x0D].contains(byte) {
                continue
            }
            output.append(byte)
        }
        return output
    }

    private func check(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let bytes = Array(text.utf8)
        let value = try JSONParser.parse(bytes)  // Only strict JSON is compacted.
        var compacted = TextBuffer(capacity: 1)
        CaptureJSONOutput.writeCompacted(json: bytes, into: &compacted)
        #expect(compacted.bytes == reference(bytes), "\(text.debugDescription)", sourceLocation: sourceLocation)
        #expect(try JSONParser.parse(compacted.bytes) == value, sourceLocation: sourceLocation)
        // Inside a line, the scan finds the compacted text as written.
        let line = Array(#"{"v":2,"x":"\"payload\":{","payload":{"size":1,"parsed":"#.utf8) + compacted.bytes + Array(#"},"z":[1]}"#.utf8)
        _ = try JSONParser.parse(line)
        let range = line.withUnsafeBufferPointer { CaptureLineScan.valueRange(in: $0, path: "payload", "parsed") }
        #expect(range.map { Array(line[$0]) } == compacted.bytes, "\(text.debugDescription)", sourceLocation: sourceLocation)
    }

    @Test func compactionDropsOnlyTheWhitespaceBetweenTokens() throws {
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

    @Test func aLineLongerThanItsEstimateGrowsTheBufferIntact() throws {
        var buffer = TextBuffer(capacity: 16)
        var expected: [UInt8] = []
        for round in 0..<200 {
            let chunk = Array("chunk \(round) é\n".utf8)
            chunk.withUnsafeBufferPointer { buffer.append($0) }
            expected += chunk
            buffer.append(UInt8(ascii: ";"))
            expected.append(UInt8(ascii: ";"))
        }
        #expect(buffer.bytes == expected)
        #expect(buffer.count == expected.count)
    }
}
