import HTTPTransport

/// What the mock keeps per HTTP/2 connection to an APNs listener.
struct EndpointConnectionState {
    /// The connection's handler, made by the server's ``PushHandlerFactory`` when the
    /// connection opened.
    var handler: any PushHandler
    var streams = StreamLimitPolicy.State()
    var errors = ConnectionErrorBudget.State()
    /// Pushes whose capture line the file has not yet acknowledged, so whose answers wait.
    var unacknowledgedLines = 0
    /// Reading is paused because the capture file was behind; it resumes once every line
    /// of this connection is acknowledged.
    var readingPaused = false

    enum Key: HTTPConnectionStateKey {
        typealias Value = Box
    }

    /// The state's home on its connection, updated in place: storing the struct back into
    /// the connection after every push boxed it into a fresh existential each time.
    ///
    /// Only the connection's event loop touches it (the handler runs there, one push at a
    /// time), which is what makes the unchecked `Sendable` sound.
    final class Box: @unchecked Sendable {
        var state: EndpointConnectionState
        /// Where the capture writer's acknowledgements run this connection's answers.
        let answers: LoopAnswerQueue

        init(_ state: EndpointConnectionState, answers: LoopAnswerQueue) {
            self.state = state
            self.answers = answers
        }
    }
}
