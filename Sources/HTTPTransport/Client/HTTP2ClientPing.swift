/// A PING sent and not yet acknowledged: who waits for it, when it left, and the timer that
/// closes the connection if no acknowledgement comes (`HTTP2ClientConfiguration.pingTimeout`).
/// Loop-confined, like the connection's other stream state.
struct HTTP2ClientPing {
    /// Its place among the connection's PINGs, counted from 1.
    let number: Int
    let waiter: HTTP2PingWaiter
    let sentAt: ContinuousClock.Instant
    /// Nil without a timeout.
    let timer: ScheduledTask?
}
