@testable import CLISupport
import Testing

/// The fields a line-building closure appends, in the order given, after the label.
struct LogLineFieldTests {
    @Test func fieldsOfEveryKindAppearInOrderBeforeTheMessage() throws {
        let sink = LogSink.memory()
        let logger = Logger(label: "apns-mock", sink: sink)
        let masked: [UInt8] = Array("abab…abab".utf8)
        logger.log(level: .info, "push rejected") { line in
            line.field("push.env", "sandbox")
            line.field("push.connection", UInt64(7))
            line.field("push.status", -3)
            masked.withUnsafeBufferPointer { line.field("push.device", utf8: $0) }
        }
        let text = try #require(sink.recorded.first)
        #expect(text.hasSuffix(" info apns-mock: push.env=sandbox push.connection=7 push.status=-3 push.device=abab…abab push rejected\n"))
    }

    /// The text after the timestamp of the one line `log` makes.
    private func line(_ log: (Logger) -> Void) throws -> String {
        let sink = LogSink.memory()
        log(Logger(label: "push-gateway", sink: sink))
        let recorded = try #require(sink.recorded.first)
        #expect(sink.recorded.count == 1)
        #expect(recorded.filter { $0 == "\n" }.count == 1 && recorded.hasSuffix("\n"), "one event is one line: \(recorded)")
        return String(recorded.drop { $0 != " " }.dropFirst())
    }

    @Test func aValueThatIsNotOnePlainWordIsQuotedAndEscapedAsAJSONString() throws {
        let text = try line { logger in
            logger.log(level: .info, "push failed") { line in
                line.field("apns.reason", "Bad\nINJECTED gateway.status=200 x")
                line.field("apns.error", "connect failed")
                line.field("q", #"say "hi" \ bye"#)
                line.field("bidi", "ab\u{202E}cd")
                line.field("c1", "a\u{9B}31m")
                line.field("empty", "")
                line.field("plain", "abab…abab")
            }
        }
        #expect(text == #"info push-gateway: apns.reason="Bad\nINJECTED gateway.status=200 x" apns.error="connect failed" "#
            + #"q="say \"hi\" \\ bye" bidi="ab\u202ecd" c1="a\u009b31m" empty= plain=abab…abab push failed"# + "\n")
    }

    @Test func bytesThatAreNotUTF8AreQuotedAsReplacementCharacters() throws {
        let bytes: [UInt8] = [0x61, 0xFF, 0x0A, 0x62]
        let text = try line { logger in
            logger.log(level: .info, "x") { line in bytes.withUnsafeBufferPointer { line.field("v", utf8: $0) } }
        }
        #expect(text == "info push-gateway: v=\"a\u{FFFD}\\nb\" x\n")
    }

    @Test func metadataAndMessagesFromTheProgramsStringsAreEscapedToo() throws {
        let text = try line { logger in
            logger.info("cannot start: \"port\"\nin use\u{1B}[2J", metadata: ["a.b": "two words", "c": "ok"])
        }
        // Metadata values as fields are; the message keeps its quotes and spaces, and only its
        // control characters become escapes.
        #expect(text == #"info push-gateway: a.b="two words" c=ok cannot start: "port"\nin use\u001b[2J"# + "\n")
    }

    @Test func ordinaryValuesAreWrittenAsTheyWere() throws {
        let text = try line { logger in
            logger.log(level: .info, "push accepted", fields: [("push.topic", "com.example.app"), ("push.status", "200"),
                                                               ("push.apns-id", "5C6F3F5E-8A1B-4C2D-9E0F-0123456789AB")])
        }
        #expect(text == "info push-gateway: push.topic=com.example.app push.status=200 "
            + "push.apns-id=5C6F3F5E-8A1B-4C2D-9E0F-0123456789AB push accepted\n")
    }

    /// The word-at-a-time scan finds each byte that makes a value need quotes wherever it
    /// falls within an 8-byte word or the tail, as a byte-by-byte check does.
    @Test func aSpecialByteAtAnyOffsetMakesAValueNeedQuotes() {
        let specials: [[UInt8]] = [
            [0x20], [0x0A], [0x00], [0x1F], [0x7F], [0x22], [0x5C],
            [0xC2, 0x85],        // U+0085, a C1 control
            [0xE2, 0x80, 0xAE],  // U+202E, right-to-left override
            [0xE2, 0x80, 0xA8],  // U+2028
            [0xFF],              // not UTF-8
        ]
        for length in 0...20 {
            let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(plain.withUnsafeBufferPointer { LogLine.isPlainWord($0) }, "\(length) plain bytes")
            for offset in 0...length {
                for special in specials {
                    var value = plain
                    value.insert(contentsOf: special, at: offset)
                    #expect(!value.withUnsafeBufferPointer { LogLine.isPlainWord($0) }, "\(special) at \(offset) of \(length)")
                }
                var accented = plain
                accented.insert(contentsOf: [0xC3, 0xA9], at: offset)  // é: printable, stays plain
                #expect(accented.withUnsafeBufferPointer { LogLine.isPlainWord($0) }, "é at \(offset) of \(length)")
            }
        }
    }
}
