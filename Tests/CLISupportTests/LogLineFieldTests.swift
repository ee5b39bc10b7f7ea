import CLISupport
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
}
