import APNsCore
import APNsCapture
import StrictJSON

extension PushInput {
    /// The push a capture record holds. Headers are taken as sent, so that a rule sees a
    /// bad value the mock rejected; the record's settled fields fill in what was not sent
    /// (a topic from the client certificate, say). `apns-push-type`, `apns-priority` and
    /// `apns-id` come only from the headers: when none was sent, the record's `push_type` is
    /// the type the mock inferred and its `priority` is 10, and a rule must see that the
    /// header was not sent.
    ///
    /// - Parameter sourceName: the file or URL the record was read from, for findings to name.
    public init(record: CaptureRecord, sourceName: String) {
        let headers = record.headers
        var sent = PushHeaders(
            sentPushType: headers[APNsHeaderName.pushType],
            topic: headers[APNsHeaderName.topic] ?? record.topic,
            priority: headers[APNsHeaderName.priority],
            expiration: headers[APNsHeaderName.expiration],
            collapseID: headers[APNsHeaderName.collapseID] ?? record.collapseID,
            apnsID: headers[APNsHeaderName.id],
            deviceToken: record.deviceToken?.hex ?? record.rawDeviceToken)
        if sent.expiration == nil, sent.unparsedExpiration == nil { sent.expiration = record.expiration }
        let result = PushResult(status: record.outcome.status, reason: record.outcome.reason?.wireValue,
                                injected: record.outcome.isInjected, faults: record.faults,
                                explanation: record.outcome.explanation)
        let source = PushSource(name: sourceName, sequence: record.sequence, apnsID: record.outcome.apnsID,
                                environment: record.environment.rawValue)
        let sentAt = record.receivedAtMicroseconds / 1_000_000
        if let parsed = record.parsedPayload {
            self.init(headers: sent, payloadSize: record.payload.count, payload: parsed, result: result, sentAt: sentAt,
                      source: source)
        } else {
            // Validation stopped before parsing (a rejected push); parse here so rules still run.
            self.init(headers: sent, payload: record.payload, result: result, sentAt: sentAt, source: source)
        }
        // A request of another shape never was a push: rules about headers and payloads
        // would only report what a GET lacks. Its line is the sender's text, escaped, with
        // the device token masked as everywhere in a report.
        if record.method != "POST" || record.rawDeviceToken == nil {
            let path = record.deviceToken.map { "/3/device/" + $0.masked } ?? record.path
            var line: [UInt8] = []
            JSONWriter.writeString("\(record.method) \(path)", into: &line, escaping: .terminalSafe)
            nonPushRequest = String(decoding: line.dropFirst().dropLast(), as: UTF8.self)
        }
    }
}
