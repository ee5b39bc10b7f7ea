@testable import PushGateway
import Testing

struct ServerTimingTests {
    @Test(arguments: [
        (Duration.zero, "apns;dur=0.000"),
        (.microseconds(5), "apns;dur=0.005"),
        (.microseconds(412), "apns;dur=0.412"),
        (.nanoseconds(1_999), "apns;dur=0.001"),
        (.milliseconds(1_234) + .microseconds(50), "apns;dur=1234.050"),
        (.milliseconds(10), "apns;dur=10.000"),
        (.microseconds(123_456_789), "apns;dur=123456.789"),
        (.seconds(-1), "apns;dur=0.000"),
    ])
    func theAPNsLegIsInMillisecondsWithMicroseconds(duration: Duration, header: String) {
        #expect(ServerTiming.value(apns: duration) == header)
    }
}
