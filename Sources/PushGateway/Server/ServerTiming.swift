/// The `server-timing` header (W3C Server Timing) on every `/push` answer that went to
/// APNs: `apns;dur=<ms>`, how long APNs took for this push, from its hand-off to the APNs
/// client to the final answer, retries included.
///
/// A caller that subtracts it from its own round trip gets, for that one push, the time
/// the gateway itself added: its HTTP hop, validation, authorization and the answer.
/// `scripts/bench-gateway.sh` measures the gateway's added latency that way, so a stall
/// of the machine during the APNs leg (which a client sending direct would suffer too)
/// is not counted against the gateway. Only authorized pushes reach APNs, so only their
/// senders see the figure.
///
/// ```
/// server-timing: apns;dur=0.412
/// ```
enum ServerTiming {
    static let name = "server-timing"

    /// `apns;dur=` and `duration` in milliseconds with three decimals (microseconds).
    static func value(apns duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds = max(0, seconds * 1_000_000 + attoseconds / 1_000_000_000_000)
        // Written as bytes: this runs once per push, and interpolation costs several times more.
        var digits = 1
        var rest = microseconds / 1000
        while rest >= 10 { rest /= 10; digits += 1 }
        let prefix: StaticString = "apns;dur="
        let count = prefix.utf8CodeUnitCount + digits + 4
        return String(unsafeUninitializedCapacity: count) { buffer in
            for index in 0..<prefix.utf8CodeUnitCount { buffer[index] = prefix.utf8Start[index] }
            var value = microseconds
            var index = count - 1
            while index >= prefix.utf8CodeUnitCount {
                if index == count - 4 {
                    buffer[index] = UInt8(ascii: ".")
                } else {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                index -= 1
            }
            return count
        }
    }
}
