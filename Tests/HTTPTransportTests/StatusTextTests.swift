import Testing

@testable import HTTPTransport

struct StatusTextTests {
    /// The spelled-out statuses and the formatted ones read the same as the number.
    @Test func everyStatusIsItsDecimal() {
        for status in 100...599 {
            #expect(HTTP2ServerSession.statusText(status) == String(status), "\(status)")
        }
    }
}
